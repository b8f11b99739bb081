/**
 * PodSecurity for pod creates and updates (and pod subresources that carry a Pod, such as
 * ephemeralcontainers): the namespace's enforce level refuses (403), its audit level annotates
 * the audit event, its warn level adds a Warning header, as Kubernetes' pod-security-admission.
 */
import { ApiObject } from '../../scheme/types';
import { ApiError, errors } from '../../meta/api-errors';
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { NamespaceLookup } from '../namespace-lifecycle';
import { Obj, obj, objs, str } from './check';
import { AggregateResult, forbiddenDetail } from './evaluator';
import { LevelVersion, Policy, fullyPrivileged, levelVersionString } from './levels';
import { PolicyContext, fieldErrorsMessage, podView } from './policy-context';
import { FieldError } from '../../meta/field-errors';

/** Subresources that never change what the checks read (any other one carrying a Pod is evaluated). */
const IGNORED_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

export async function validatePod(pc: PolicyContext, namespaces: NamespaceLookup, attrs: AdmissionAttributes): Promise<void> {
  if (attrs.subresource && IGNORED_SUBRESOURCES.has(attrs.subresource)) return;
  if (pc.exemptNamespace(attrs.namespace)) {
    pc.annotate(attrs, 'exempt', 'namespace');
    return;
  }
  if (pc.exemptUser(userOf(attrs).name)) {
    pc.annotate(attrs, 'exempt', 'user');
    return;
  }
  const namespace = attrs.namespace ? await namespaces.get(attrs.namespace, false).catch(() => undefined) : undefined;
  if (!namespace) {
    const message = `failed to lookup namespace ${JSON.stringify(attrs.namespace ?? '')}`;
    pc.annotate(attrs, 'error', `Internal error occurred: ${message}`);
    throw errors.internal(message);
  }
  const { policy, errors: labelErrors } = pc.policyOf(namespace);
  if (!labelErrors.length && fullyPrivileged(policy)) {
    pc.annotate(attrs, 'enforce-policy', 'privileged:latest');
    return;
  }
  const pod = attrs.object;
  if (!isPod(pod)) throw errors.badRequest('failed to decode pod');
  if (attrs.operation === 'UPDATE') {
    if (!isPod(attrs.oldObject)) throw errors.badRequest('failed to decode old pod');
    // Nothing the checks care about changed: always allowed.
    if (!isSignificantPodUpdate(pod, attrs.oldObject)) return;
  }
  evaluatePod(pc, policy, labelErrors, pod, attrs);
}

function isPod(o: ApiObject | undefined): o is ApiObject {
  return !!o && (o.kind === undefined || o.kind === 'Pod');
}

/**
 * Evaluates one pod under the namespace's policy: audit and warn results reuse enforce's when
 * the level and version are the same; no warning is added to a refused request.
 */
export function evaluatePod(pc: PolicyContext, policy: Policy, labelErrors: FieldError[], pod: ApiObject, attrs: AdmissionAttributes): void {
  const view = podView(pod);
  if (pc.exemptRuntimeClass(view.spec)) {
    pc.annotate(attrs, 'exempt', 'runtimeClass');
    return;
  }
  if (labelErrors.length) pc.annotate(attrs, 'error', `Failed to parse policy: ${fieldErrorsMessage(labelErrors)}`);
  const cache = new Map<string, AggregateResult>();
  const resultOf = (lv: LevelVersion) => {
    const key = levelVersionString(lv);
    let r = cache.get(key);
    if (!r) cache.set(key, r = pc.evaluator.evaluateAggregate(lv, view));
    return r;
  };
  pc.annotate(attrs, 'enforce-policy', levelVersionString(policy.enforce));
  const enforced = resultOf(policy.enforce);
  let refusal: ApiError | undefined;
  if (!enforced.allowed) {
    const name = attrs.name || str(pod.metadata?.name);
    refusal = errors.forbidden({ group: '', resource: 'pods' }, name,
      `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(enforced)}`);
  }
  const audited = resultOf(policy.audit);
  if (!audited.allowed) {
    pc.annotate(attrs, 'audit-violations', `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audited)}`);
  }
  if (refusal) throw refusal;
  const warned = resultOf(policy.warn);
  if (!warned.allowed) {
    attrs.ctx.warn?.(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warned)}`);
  }
}

/**
 * Kubernetes re-evaluates a pod update only when containers or init containers were added or
 * removed, an image changed, or an ephemeral container was added or changed its image: the
 * rest of a pod's spec is immutable there. Should a spec field the checks read change anyway,
 * that update is evaluated too, so a laxer update path can never bypass the policy.
 */
export function isSignificantPodUpdate(pod: ApiObject, oldPod: ApiObject): boolean {
  const spec = obj(pod.spec) ?? {};
  const oldSpec = obj(oldPod.spec) ?? {};
  for (const field of ['containers', 'initContainers']) {
    const now = objs(spec[field]);
    const before = objs(oldSpec[field]);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => str(c.image) !== str(before[i].image))) return true;
  }
  const oldEphemeral = objs(oldSpec.ephemeralContainers);
  for (const c of objs(spec.ephemeralContainers)) {
    const old = oldEphemeral.find((o) => str(o.name) === str(c.name));
    if (!old || str(old.image) !== str(c.image)) return true;
  }
  return canonical(policyFields(spec)) !== canonical(policyFields(oldSpec));
}

/** The spec fields any check reads (annotations are left out, as in Kubernetes). */
function policyFields(spec: Obj): unknown {
  const containers = (field: string) => objs(spec[field]).map((c) => [c.name, c.securityContext, c.ports]);
  return [spec.hostNetwork, spec.hostPID, spec.hostIPC, spec.hostUsers, spec.securityContext, spec.volumes, spec.os,
    spec.runtimeClassName, containers('initContainers'), containers('containers'), containers('ephemeralContainers')];
}

/** JSON with object keys sorted, so that key order never counts as a change. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}
