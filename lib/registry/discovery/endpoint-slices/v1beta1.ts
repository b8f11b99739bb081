/**
 * EndpointSlice at discovery/v1beta1: removed from Kubernetes in 1.25, served here only when
 * `--runtime-config=<discovery group>/v1beta1=true` switches it on (deprecated, with Kubernetes'
 * warning), because release-1.20 kube-controller-manager's EndpointSlice controllers write it.
 * Its objects are v1's (stored at v1): a write is converted to v1 (`topology` to `nodeName`,
 * `zone` and `deprecatedTopology`: ./topology.ts) before v1's defaults and validation; a read is
 * converted back. A v1beta1 write keeps `deprecatedTopology` (only v1 writes drop it).
 */
import { ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { KIND, endpointSliceResource } from './definition';
import { endpointSliceV1beta1Schema } from './schema';
import { endpointsFromV1beta1, endpointsToV1beta1 } from './topology';
import { defaultEndpointSlice } from './validation';

export function endpointSliceV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = endpointSliceResource(naming);
  const group = naming.group('discovery');
  const def: ResourceDef = {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    schema: endpointSliceV1beta1Schema,
    deprecation: { deprecatedIn: [1, 21], removedIn: [1, 25], replacement: { group, version: 'v1', kind: KIND } },
    strategy: {
      ...v1.strategy,
      checkDecode: (obj) => decodeProblem(obj, endpointSliceV1beta1Schema, KIND),
      default: (obj) => { endpointsFromV1beta1(obj); defaultEndpointSlice(obj); },
      prepareForCreate: (obj) => { endpointsFromV1beta1(obj); defaultEndpointSlice(obj); },
      prepareForUpdate: (obj) => { endpointsFromV1beta1(obj); defaultEndpointSlice(obj); },
      decorate: (obj) => endpointsToV1beta1(obj),
    },
  };
  return servedOverStorage(def, 'v1');
}
