/**
 * Kubernetes' pod evaluator (pkg/quota/v1/evaluator/core/pods.go): count/pods for every pod;
 * pods, cpu, memory, ephemeral-storage, requests.*, limits.*, hugepages and extended resources
 * for pods not yet terminal (not Succeeded or Failed, not past their deletion grace period).
 * Scopes: Terminating (activeDeadlineSeconds >= 0), NotTerminating, BestEffort, NotBestEffort,
 * PriorityClass (the selector over spec.priorityClassName), CrossNamespacePodAffinity. Quotas
 * on cpu or memory require every container to state them ("must specify ...").
 */
import { ApiObject } from '../../../scheme/types';
import { Json, isObject, obj, objects, str } from '../../pod/pod-json';
import { isBestEffort } from '../../pod/pod-qos';
import { isNativeResource } from '../../../registry/core/quota-resource-names';
import { ResourceList, add, parseResourceList, quantity } from '../resource-list';
import { computeUsage, podResources } from './pod-resources';
import { Evaluator, ScopeRequirement } from './types';

const POD_RESOURCES = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

const specOf = (pod: ApiObject): Json => (isObject(pod.spec) ? pod.spec : {});

/** activeDeadlineSeconds set and not negative. */
function isTerminating(pod: ApiObject): boolean {
  const d = specOf(pod).activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
}

/** A pod (anti-)affinity term that names namespaces or a namespace selector. */
function usesCrossNamespacePodAffinity(pod: ApiObject): boolean {
  const affinity = obj(specOf(pod), 'affinity');
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity, kind);
    const terms = [...objects(a, 'requiredDuringSchedulingIgnoredDuringExecution'),
      ...objects(a, 'preferredDuringSchedulingIgnoredDuringExecution').map((w) => obj(w, 'podAffinityTerm') ?? {})];
    if (terms.some((t) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || isObject(t.namespaceSelector))) return true;
  }
  return false;
}

/** The PriorityClass selector over the label set {PriorityClass: spec.priorityClassName}. */
function matchesPriorityClass(req: ScopeRequirement, pod: ApiObject): boolean {
  const name = str(specOf(pod), 'priorityClassName');
  switch (req.operator) {
    case 'Exists': return name.length !== 0;
    case 'DoesNotExist': return false;
    case 'In': return (req.values ?? []).includes(name);
    case 'NotIn': return !(req.values ?? []).includes(name);
    default: return false;
  }
}

/** QuotaV1Pod: not terminal and not past its deletion grace period. */
export function podCountsForCompute(pod: ApiObject, now: Date = new Date()): boolean {
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const meta = pod.metadata;
  if (meta?.deletionTimestamp && typeof meta.deletionGracePeriodSeconds === 'number') {
    const end = Date.parse(String(meta.deletionTimestamp)) + meta.deletionGracePeriodSeconds * 1000;
    if (now.getTime() > end) return false;
  }
  return true;
}

export const podEvaluator: Evaluator = {
  groupResource: '/pods',
  scoped: true,
  handles: (op) => op === 'CREATE',
  matchingResources(names) {
    const out = names.filter((n) => POD_RESOURCES.includes(n));
    for (const n of names) {
      if (n.startsWith('hugepages-') || n.startsWith('requests.hugepages-')) out.push(n);
      if (!isNativeResource(n) && n.startsWith('requests.')) out.push(n);
    }
    return out;
  },
  matchesScope(req, pod) {
    switch (req.scopeName) {
      case 'Terminating': return isTerminating(pod);
      case 'NotTerminating': return !isTerminating(pod);
      case 'BestEffort': return isBestEffort(specOf(pod));
      case 'NotBestEffort': return !isBestEffort(specOf(pod));
      case 'PriorityClass': return matchesPriorityClass(req, pod);
      case 'CrossNamespacePodAffinity': return usesCrossNamespacePodAffinity(pod);
      default: return false;
    }
  },
  usage(pod, now) {
    let out: ResourceList = new Map([['count/pods', quantity(1)]]);
    if (!podCountsForCompute(pod, now)) return out;
    const spec = specOf(pod);
    out = add(out, computeUsage(podResources(spec, 'requests'), podResources(spec, 'limits')));
    return out;
  },
  constraints(required, pod) {
    const wanted = required.filter((r) => VALIDATION_SET.has(r));
    if (!wanted.length) return undefined;
    const missing = new Map<string, Set<string>>();
    const spec = specOf(pod);
    for (const c of [...objects(spec, 'containers'), ...objects(spec, 'initContainers')]) {
      const resources = obj(c, 'resources');
      const have = computeUsage(parseResourceList(obj(resources, 'requests')), parseResourceList(obj(resources, 'limits')));
      for (const r of wanted) {
        if (!have.has(r)) {
          if (!missing.has(r)) missing.set(r, new Set());
          missing.get(r)!.add(str(c, 'name'));
        }
      }
    }
    if (!missing.size) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};
