/**
 * A pod's effective requests and limits as Kubernetes' resourcehelper.PodRequests / PodLimits
 * compute them: the containers summed, sidecars (init containers with restartPolicy Always)
 * added to them, the largest init container step taken when it is larger, and the pod overhead
 * added. Then podComputeUsageHelper's names: pods, cpu and memory (= requests), requests.* and
 * limits.*, hugepages and extended resources under `requests.`.
 */
import { Json, isObject, obj, objects, str } from '../../pod/pod-json';
import { ResourceList, add, max, parseResourceList, quantity } from '../resource-list';
import { isExtendedResourceName } from '../../../registry/core/quota-resource-names';

type Which = 'requests' | 'limits';

const listOf = (container: Json, which: Which): ResourceList => parseResourceList(obj(obj(container, 'resources'), which));

/** PodRequests (which = requests) or PodLimits (which = limits) of a pod spec. */
export function podResources(spec: Json, which: Which): ResourceList {
  let sum: ResourceList = new Map();
  for (const c of objects(spec, 'containers')) sum = add(sum, listOf(c, which));
  let sidecars: ResourceList = new Map();
  let initMax: ResourceList = new Map();
  for (const c of objects(spec, 'initContainers')) {
    let step = listOf(c, which);
    if (str(c, 'restartPolicy') === 'Always') {
      sidecars = add(sidecars, step);
      step = new Map(sidecars);
    } else {
      step = add(step, sidecars);
    }
    initMax = max(initMax, step);
  }
  let out = max(add(sum, sidecars), initMax);
  const overhead = isObject(spec.overhead) ? parseResourceList(spec.overhead) : new Map();
  // Limits take the overhead only where a limit is set (PodLimits), requests always.
  if (which === 'requests') out = add(out, overhead);
  else for (const [k, v] of overhead) if (out.has(k)) out = add(out, new Map([[k, v]]));
  return out;
}

/** podComputeUsageHelper. */
export function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', quantity(1)]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(name);
    if (req) { out.set(name, req); out.set(`requests.${name}`, req); }
    const lim = limits.get(name);
    if (lim) out.set(`limits.${name}`, lim);
  }
  for (const [name, req] of requests) {
    if (name.startsWith('hugepages-')) { out.set(name, req); out.set(`requests.${name}`, req); }
    if (isExtendedResourceName(name)) out.set(`requests.${name}`, req);
  }
  return out;
}
