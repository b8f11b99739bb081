/**
 * LimitRanger (plugin/pkg/admission/limitranger of Kubernetes 1.32), mutating and validating.
 * It acts on pods and persistentvolumeclaims (no subresource), on CREATE and UPDATE, except pod
 * updates (containers cannot change, SupportsAttributes skips them) and objects already marked
 * for deletion. Each LimitRange of the namespace (./lookup.ts) is applied in turn:
 * admit sets a pod's default requests and limits (./limit-funcs.ts), validate checks the pod or
 * claim against the bounds. The first LimitRange violated refuses the write: 403 Forbidden,
 * `pods "x" is forbidden: <its violations>`.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { admissionForbidden } from '../resources/admission-forbidden';
import { mutatePod, validateClaim, validatePod } from './limit-funcs';

/** SupportsAttributes, the Create/Update handler and the deletion check of runLimitFunc. */
function supports(a: AdmissionAttributes): boolean {
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return false;
  if (a.subresource || !a.object || a.resource.group !== '') return false;
  const kind = a.resource.kind;
  if (kind === 'Pod' && a.operation === 'UPDATE') return false;
  if (kind !== 'Pod' && kind !== 'PersistentVolumeClaim') return false;
  return !a.oldObject?.metadata?.deletionTimestamp;
}

/** Where the plugin finds a namespace's LimitRanges (./lookup.ts). */
export interface LimitRangeSource {
  forNamespace(namespace: string): Promise<ApiObject[]>;
}

/** The plugin over the LimitRanges `lookup` finds. */
export function limitRangerPlugin(lookup: LimitRangeSource): AdmissionPlugin {
  const run = async (a: AdmissionAttributes, fn: (lr: ApiObject, obj: ApiObject) => string | undefined): Promise<void> => {
    if (!supports(a)) return;
    for (const lr of await lookup.forNamespace(a.namespace ?? '')) {
      const why = fn(lr, a.object as ApiObject);
      if (why !== undefined) throw admissionForbidden(a, why);
    }
  };
  return {
    name: 'LimitRanger',
    resources: ['/pods', '/persistentvolumeclaims'],
    admit: (a) => run(a, (lr, obj) => {
      if (a.resource.resource === 'pods') mutatePod(lr, obj);
      return undefined;
    }),
    validate: (a) => run(a, (lr, obj) => {
      if (a.resource.resource === 'pods') return validatePod(lr, obj);
      if (a.resource.resource === 'persistentvolumeclaims') return validateClaim(lr, obj);
      return undefined;
    }),
  };
}
