/**
 * What one LimitRange does to a pod or a claim (Kubernetes 1.32's PodMutateLimitFunc,
 * PodValidateLimitFunc and PersistentVolumeClaimValidateLimitFunc):
 *
 * - mutate: every container and init container gets the Container item's `default` for each
 *   limit it lacks and its `defaultRequest` for each request it lacks, and the pod is annotated
 *   `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request for container a; ...`.
 * - validate a pod: Container items bound every container and init container; Pod items bound
 *   the pod's totals, the sum over containers and sidecars (restartable init containers) or the
 *   largest init container with the sidecars started before it, whichever is greater.
 * - validate a claim: PersistentVolumeClaim items bound spec.resources.requests (min, max).
 *
 * Each returns the aggregate sentence of its violations, or undefined.
 */
import { ApiObject } from '../../scheme/types';
import { Quantity } from '../../meta/quantity';
import { ResourceList, addList, maxList, parseList } from './quantities';
import { aggregate, limitRequestRatioConstraint, maxConstraint, maxRequestConstraint, minConstraint } from './constraints';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The items of a LimitRange. */
const itemsOf = (lr: ApiObject): Json[] => objects(isObject(lr.spec) ? lr.spec.limits : undefined);
/** A container's resources.<field> as a list. */
const resourcesOf = (c: Json, field: 'requests' | 'limits'): ResourceList => parseList(isObject(c.resources) ? c.resources[field] : undefined);
const podSpec = (pod: ApiObject): Json => (isObject(pod.spec) ? pod.spec : {});

/** defaultContainerResourceRequirements: the Container items' default requests and limits (raw values). */
function containerDefaults(lr: ApiObject): { requests: Json; limits: Json } {
  const out = { requests: {} as Json, limits: {} as Json };
  for (const item of itemsOf(lr)) {
    if (item.type !== 'Container') continue;
    Object.assign(out.requests, isObject(item.defaultRequest) ? item.defaultRequest : {});
    Object.assign(out.limits, isObject(item.default) ? item.default : {});
  }
  return out;
}

/** mergeContainerResources: fills what `c` lacks; returns the annotation parts. */
function mergeContainer(c: Json, defaults: { requests: Json; limits: Json }, prefix: string): string[] {
  const resources = isObject(c.resources) ? c.resources : {};
  const fill = (field: 'requests' | 'limits', from: Json): string[] => {
    const have = isObject(resources[field]) ? resources[field] as Json : {};
    const set = Object.keys(from).filter((k) => !Object.hasOwn(have, k));
    for (const k of set) have[k] = from[k];
    if (set.length) resources[field] = have;
    return set.sort();
  };
  const limits = fill('limits', defaults.limits);
  const requests = fill('requests', defaults.requests);
  if (limits.length || requests.length) c.resources = resources;
  const parts: string[] = [];
  if (requests.length) parts.push(`${requests.join(', ')} request for ${prefix} ${String(c.name ?? '')}`);
  if (limits.length) parts.push(`${limits.join(', ')} limit for ${prefix} ${String(c.name ?? '')}`);
  return parts;
}

/** PodMutateLimitFunc: the defaults of `lr` applied to `pod` in place, with the annotation. */
export function mutatePod(lr: ApiObject, pod: ApiObject): void {
  const defaults = containerDefaults(lr);
  const spec = podSpec(pod);
  const parts = [
    ...objects(spec.containers).flatMap((c) => mergeContainer(c, defaults, 'container')),
    ...objects(spec.initContainers).flatMap((c) => mergeContainer(c, defaults, 'init container')),
  ];
  if (!parts.length) return;
  const meta = pod.metadata ??= {};
  meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${parts.join('; ')}` };
}

/** The min, max and ratio constraints of one item over one set of requests and limits. */
function checkItem(item: Json, requests: ResourceList, limits: ResourceList): string[] {
  const type = String(item.type ?? '');
  const errs: Array<string | undefined> = [];
  for (const [k, v] of parseList(item.min)) errs.push(minConstraint(type, k, v, requests, limits));
  for (const [k, v] of parseList(item.max)) errs.push(maxConstraint(type, k, v, requests, limits));
  for (const [k, v] of parseList(item.maxLimitRequestRatio)) errs.push(limitRequestRatioConstraint(type, k, v, requests, limits));
  return errs.filter((e): e is string => e !== undefined);
}

const isSidecar = (c: Json): boolean => c.restartPolicy === 'Always';

/** podRequests / podLimits of 1.32: containers and sidecars summed, each init container with the sidecars before it, the greater. */
export function podTotals(pod: ApiObject, field: 'requests' | 'limits'): ResourceList {
  const spec = podSpec(pod);
  const total: ResourceList = new Map();
  for (const c of objects(spec.containers)) addList(total, resourcesOf(c, field));
  const sidecars: ResourceList = new Map();
  const initMax: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = resourcesOf(c, field);
    let effective: ResourceList;
    if (isSidecar(c)) {
      addList(total, own);
      addList(sidecars, own);
      effective = sidecars;
    } else {
      effective = new Map<string, Quantity>();
      addList(effective, own);
      addList(effective, sidecars);
    }
    maxList(initMax, effective);
  }
  maxList(total, initMax);
  return total;
}

/** PodValidateLimitFunc: the aggregate of `lr`'s violations by `pod`. */
export function validatePod(lr: ApiObject, pod: ApiObject): string | undefined {
  const spec = podSpec(pod);
  const errs: string[] = [];
  for (const item of itemsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
        errs.push(...checkItem(item, resourcesOf(c, 'requests'), resourcesOf(c, 'limits')));
      }
    }
    if (item.type === 'Pod') errs.push(...checkItem(item, podTotals(pod, 'requests'), podTotals(pod, 'limits')));
  }
  return errs.length ? aggregate(errs) : undefined;
}

/** PersistentVolumeClaimValidateLimitFunc: min and max of the claim's requests. */
export function validateClaim(lr: ApiObject, claim: ApiObject): string | undefined {
  const spec = isObject(claim.spec) ? claim.spec : {};
  const requests = parseList(isObject(spec.resources) ? spec.resources.requests : undefined);
  const errs: Array<string | undefined> = [];
  for (const item of itemsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of parseList(item.min)) errs.push(minConstraint('PersistentVolumeClaim', k, v, requests, new Map()));
    for (const [k, v] of parseList(item.max)) errs.push(maxRequestConstraint('PersistentVolumeClaim', k, v, requests));
  }
  const found = errs.filter((e): e is string => e !== undefined);
  return found.length ? aggregate(found) : undefined;
}
