/**
 * PodSecurity for namespace creates and updates: the policy labels must be valid (422 Invalid,
 * on update only when they changed), and an update that tightens the enforce level is answered
 * with warnings naming the existing pods that would violate it, read from the Pod watch cache
 * (at most 3000 pods, within one second), as Kubernetes' pod-security-admission does.
 */
import { ApiObject } from '../../scheme/types';
import { errors } from '../../meta/api-errors';
import { GenericStore } from '../../registry/store';
import { decodeFromStorage } from '../../storage/storage-codec';
import { KeyValue } from '../../storage/interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { forbiddenReason } from './evaluator';
import {
  LevelVersion, Policy, compareLevels, equivalentPolicy, fullyPrivileged, levelVersionString, sameLevelVersion, sameVersion,
} from './levels';
import { PolicyContext, fieldErrorsMessage, podView, stringMap } from './policy-context';

/** Kubernetes' limits on checking a namespace's existing pods (an object so tests can shorten the time). */
export const podCheckLimits = { maxPods: 3000, timeoutMs: 1000 };

export async function validateNamespace(pc: PolicyContext, pods: () => GenericStore | undefined, attrs: AdmissionAttributes): Promise<void> {
  if (attrs.subresource) return;
  const ns = attrs.object;
  if (!ns) return;
  const name = ns.metadata?.name || attrs.name;
  const { policy, errors: labelErrors } = pc.policyOf(ns);
  const invalid = () => errors.invalid('Namespace', '', name, labelErrors);
  if (attrs.operation === 'CREATE') {
    if (labelErrors.length) throw invalid();
    if (pc.exemptNamespace(name)) warnExempt(pc, attrs, name, policy, ns);
    return;
  }
  if (attrs.operation !== 'UPDATE') return;
  const old = pc.policyOf(attrs.oldObject);
  // Labels that were already invalid the same way do not block other changes.
  if (labelErrors.length && (!old.errors.length || fieldErrorsMessage(labelErrors) !== fieldErrorsMessage(old.errors))) throw invalid();
  if (sameLevelVersion(policy.enforce, old.policy.enforce)) return;
  if (policy.enforce.level === 'privileged') return;
  if (sameVersion(policy.enforce.version, old.policy.enforce.version) && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
  if (pc.exemptNamespace(name)) {
    warnExempt(pc, attrs, name, policy, ns);
    return;
  }
  for (const w of await existingPodWarnings(pc, pods(), name, policy.enforce)) attrs.ctx.warn?.(w);
}

/** An exempt namespace that sets a non-privileged policy of its own is told it is ignored. */
function warnExempt(pc: PolicyContext, attrs: AdmissionAttributes, name: string, policy: Policy, ns: ApiObject): void {
  if (fullyPrivileged(policy) || equivalentPolicy(policy, pc.config.defaults)) return;
  const labels = stringMap(ns.metadata?.labels);
  const parts: string[] = [];
  const modes = [
    ['enforce', policy.enforce, pc.labels.enforce, pc.labels.enforceVersion],
    ['audit', policy.audit, pc.labels.audit, pc.labels.auditVersion],
    ['warn', policy.warn, pc.labels.warn, pc.labels.warnVersion],
  ] as const;
  for (const [mode, lv, levelLabel, versionLabel] of modes) {
    if (lv.level !== 'privileged' && (levelLabel in labels || versionLabel in labels)) parts.push(`${mode}=${levelVersionString(lv)}`);
  }
  attrs.ctx.warn?.(`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`);
}

/** The namespace's pods from the watch cache (from etcd while the cache is not ready). */
async function listPods(store: GenericStore | undefined, namespace: string): Promise<ApiObject[]> {
  if (!store) throw new Error('pods are not served');
  const prefix = store.collectionPrefix(namespace);
  const cache = store.deps.cache;
  const kvs: KeyValue[] = cache?.ready ? cache.list(prefix).kvs : (await store.storage.range(prefix)).kvs;
  return kvs.map((kv) => decodeFromStorage(kv.value, kv.modRevision));
}

/**
 * Evaluates a namespace's pods against a new enforce level. Pods with an exempt runtime class
 * are skipped; one pod per controller comes first, its siblings after every other pod. Pods
 * with the same violations share one line naming the alphabetically first of them.
 */
export async function existingPodWarnings(pc: PolicyContext, store: GenericStore | undefined, namespace: string,
  enforce: LevelVersion): Promise<string[]> {
  const deadline = Date.now() + podCheckLimits.timeoutMs;
  let pods: ApiObject[];
  try {
    pods = await listPods(store, namespace);
  } catch {
    return ['failed to list pods while checking new PodSecurity enforce level'];
  }
  const prioritized = prioritize(pc, pods);
  const total = prioritized.length;
  const toCheck = prioritized.slice(0, podCheckLimits.maxPods);
  let checked = toCheck.length;
  const order: string[] = [];
  const byWarning = new Map<string, { podName: string; count: number }>();
  for (let i = 0; i < toCheck.length; i++) {
    const pod = toCheck[i];
    const podName = pod.metadata?.name ?? '';
    const r = pc.evaluator.evaluateAggregate(enforce, podView(pod));
    if (!r.allowed) {
      const warning = forbiddenReason(r);
      const seen = byWarning.get(warning);
      if (!seen) {
        byWarning.set(warning, { podName, count: 1 });
        order.push(warning);
      } else {
        seen.count++;
        if (podName < seen.podName) seen.podName = podName;
      }
    }
    if (Date.now() >= deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (order.length) {
    warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
  }
  const podLines = order.map((w) => {
    const { podName, count } = byWarning.get(w)!;
    if (count === 1) return `${podName}: ${w}`;
    if (count === 2) return `${podName} (and 1 other pod): ${w}`;
    return `${podName} (and ${count - 1} other pods): ${w}`;
  }).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...podLines];
}

function prioritize(pc: PolicyContext, pods: ApiObject[]): ApiObject[] {
  const first: ApiObject[] = [];
  const siblings: ApiObject[] = [];
  const seenControllers = new Set<string>();
  for (const pod of pods) {
    if (pc.exemptRuntimeClass(podView(pod).spec)) continue;
    const controller = (pod.metadata?.ownerReferences ?? []).find((r) => r?.controller === true);
    if (!controller) first.push(pod);
    else if (seenControllers.has(controller.uid)) siblings.push(pod);
    else {
      seenControllers.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...siblings];
}
