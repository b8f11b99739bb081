/**
 * EndpointSlice (discovery/v1, namespaced): a slice of a Service's endpoints, written by
 * kube-controller-manager's EndpointSlice controllers (and for `default/kubernetes` by the server:
 * lib/controllers/kubernetes-service/). Kubernetes 1.32's strategy (pkg/registry/discovery/
 * endpointslice/strategy.go): generation 1 on create and bumped by any change other than metadata
 * or by a change of labels; `deprecatedTopology` not writable at v1; PUT does not create but may
 * omit the resourceVersion. kubectl's NAME ADDRESSTYPE PORTS ENDPOINTS AGE table.
 */
import { ApiObject, ResourceDef, StrategyContext } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { semanticEqual } from '../../core/semantic-equal';
import { endpointSliceSchema } from './schema';
import { endpointSliceTable } from './table';
import { dropTopologyOnV1 } from './topology';
import { defaultEndpointSlice, validateEndpointSlice, validateEndpointSliceUpdate } from './validation';

export const KIND = 'EndpointSlice';

/** Everything but apiVersion, kind and metadata, plus the labels: what bumps the generation. */
export function generationChanged(obj: ApiObject, old: ApiObject): boolean {
  const rest = ({ apiVersion: _a, kind: _k, metadata, ...fields }: ApiObject) => ({ fields, labels: metadata?.labels ?? {} });
  return !semanticEqual(rest(obj), rest(old));
}

/** The server's own `default/kubernetes` write (no request user) may carry a loopback advertise address. */
const ownKubernetesSlice = (obj: ApiObject, ctx: StrategyContext): { allowLoopback: boolean } => ({
  allowLoopback: !ctx.user && obj.metadata?.name === 'kubernetes' && (obj.metadata?.namespace ?? ctx.namespace) === 'default',
});

export function endpointSliceResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('discovery'), version: 'v1', kind: KIND, listKind: 'EndpointSliceList',
    resource: 'endpointslices', singular: 'endpointslice', namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: endpointSliceSchema,
    table: endpointSliceTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, endpointSliceSchema, KIND),
      default: defaultEndpointSlice,
      prepareForCreate: (obj) => { defaultEndpointSlice(obj); dropTopologyOnV1(obj); },
      prepareForUpdate: (obj, old) => { defaultEndpointSlice(obj); dropTopologyOnV1(obj, old); },
      specChanged: generationChanged,
      validate: (obj, ctx) => validateEndpointSlice(obj, ownKubernetesSlice(obj, ctx)),
      validateUpdate: (obj, old, ctx) => validateEndpointSliceUpdate(obj, old, ownKubernetesSlice(obj, ctx)),
    },
  };
}
