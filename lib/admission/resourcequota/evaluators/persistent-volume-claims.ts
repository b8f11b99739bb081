/**
 * Kubernetes' claim evaluator (persistent_volume_claims.go): persistentvolumeclaims and
 * count/persistentvolumeclaims for every claim, requests.storage (rounded up to a whole byte),
 * and both per storage class as `<class>.storageclass.<storage group>/persistentvolumeclaims` and
 * `.../requests.storage` (the class from the beta annotation, else spec.storageClassName).
 * Updates are charged too: a claim's request may grow.
 */
import { ApiObject } from '../../../scheme/types';
import { roundUp } from '../../../meta/quantity';
import { isObject, obj } from '../../pod/pod-json';
import { StorageNames } from '../../../registry/core/storage-annotations';
import { claimClass } from '../../resources/storage-classes';
import { ResourceList, parseResourceList, quantity } from '../resource-list';
import { Evaluator, matchesNoScope } from './types';

const PVC_RESOURCES = ['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage'];

export function persistentVolumeClaimEvaluator(names: StorageNames, storageGroup: string): Evaluator {
  const suffix = `.storageclass.${storageGroup}/`;
  return {
    groupResource: '/persistentvolumeclaims',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    matchingResources: (items) => items.filter((n) => PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(`${suffix}${r}`))),
    matchesScope: matchesNoScope,
    usage(claim: ApiObject): ResourceList {
      const out: ResourceList = new Map([['persistentvolumeclaims', quantity(1)], ['count/persistentvolumeclaims', quantity(1)]]);
      const cls = claimClass(claim, names);
      if (cls) out.set(`${cls}${suffix}persistentvolumeclaims`, quantity(1));
      const spec = isObject(claim.spec) ? claim.spec : {};
      const request = parseResourceList(obj(obj(spec, 'resources'), 'requests')).get('storage');
      if (request) {
        const rounded = roundUp(request, 0);
        out.set('requests.storage', rounded);
        if (cls) out.set(`${cls}${suffix}requests.storage`, rounded);
      }
      return out;
    },
  };
}
