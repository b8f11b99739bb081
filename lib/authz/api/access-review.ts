/**
 * What the three access reviews share: the spec as JSON, the attributes authorization is asked
 * about (Kubernetes' authorizationutil: a resource request with version "*" when none is given,
 * or a non-resource request of path and verb), and the answer written into `status`. At
 * v1beta1 (served when switched on) the spec's `groups` is called `group`: converted on the way
 * in and out, the rest is v1's.
 */
import { AuthorizationAttributes } from '../attributes';
import { Authorizer } from '../authorizer';
import { UserInfo } from '../../meta/user';

interface SelectorAttributesJson {
  rawSelector?: string | null;
  requirements?: Array<{ key?: string | null; operator?: string | null; values?: string[] | null }> | null;
}

export interface ResourceAttributesJson {
  namespace?: string | null;
  verb?: string | null;
  group?: string | null;
  version?: string | null;
  resource?: string | null;
  subresource?: string | null;
  name?: string | null;
  fieldSelector?: SelectorAttributesJson | null;
  labelSelector?: SelectorAttributesJson | null;
}

export interface NonResourceAttributesJson {
  path?: string | null;
  verb?: string | null;
}

/** SubjectAccessReviewSpec; a SelfSubjectAccessReviewSpec has only the two attribute fields. */
export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributesJson | null;
  nonResourceAttributes?: NonResourceAttributesJson | null;
  user?: string | null;
  groups?: string[] | null;
  extra?: Record<string, string[] | null> | null;
  uid?: string | null;
}

/** SubjectAccessReviewStatus as Go writes it: `allowed` always, the rest only when set. */
export interface AccessReviewStatus {
  allowed: boolean;
  denied?: true;
  reason?: string;
  evaluationError?: string;
}

const text = (v: string | null | undefined): string => v ?? '';

/** The user a SubjectAccessReview names: exactly the spec's (no system:authenticated added). */
export function userOfSpec(spec: AccessReviewSpec): UserInfo {
  const user: UserInfo = { name: text(spec.user), groups: [...(spec.groups ?? [])] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, [...(v ?? [])]]));
  return user;
}

/** The attributes of the action a validated spec asks about (exactly one of the two is set). */
export function attributesOfSpec(user: UserInfo, spec: AccessReviewSpec): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user, verb: text(r.verb), isResourceRequest: true, path: '', httpMethod: '',
      apiGroup: text(r.group), apiVersion: r.version || '*', resource: text(r.resource), subresource: text(r.subresource),
      namespace: text(r.namespace), name: text(r.name),
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user, verb: text(n.verb), isResourceRequest: false, path: text(n.path), httpMethod: '',
    apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '',
  };
}

/** Asks the chain and turns its decision into a status: allowed, denied (a mode said no), reason, evaluationError. */
export async function decide(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<AccessReviewStatus> {
  const r = await authorizer.authorize(attrs);
  const status: AccessReviewStatus = { allowed: r.decision === 'allow' };
  if (r.decision === 'deny') status.denied = true;
  if (r.reason) status.reason = r.reason;
  if (r.error) status.evaluationError = r.error;
  return status;
}

const omitted = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Go's omitempty on a struct's fields: empty strings and lists (and nulls) left out. */
function omitEmpty<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => !omitted(v))) as T;
}

/** The spec as Go writes it back, in Go's field order: the attributes set, empty fields left out. */
export function specAsWritten(spec: AccessReviewSpec): AccessReviewSpec {
  const { resourceAttributes: r, nonResourceAttributes: n, extra } = spec;
  return omitEmpty({
    resourceAttributes: r ? omitEmpty(r) : undefined,
    nonResourceAttributes: n ? omitEmpty(n) : undefined,
    user: spec.user, groups: spec.groups,
    extra: extra && Object.keys(extra).length ? extra : undefined,
    uid: spec.uid,
  });
}

/** The spec of a review sent at `version`, as v1 has it (v1beta1's `group` is v1's `groups`). */
export function specFromVersion(spec: Record<string, unknown>, version: string): AccessReviewSpec {
  if (version !== 'v1beta1') return spec as AccessReviewSpec;
  const { group, ...rest } = spec;
  return { ...rest, groups: group } as AccessReviewSpec;
}

/** A spec as written back at `version`, in Go's field order (v1beta1's `group` where v1 has `groups`). */
export function specToVersion(spec: AccessReviewSpec, version: string): Record<string, unknown> {
  if (version !== 'v1beta1') return { ...spec };
  return Object.fromEntries(Object.entries(spec).map(([k, v]) => [k === 'groups' ? 'group' : k, v]));
}
