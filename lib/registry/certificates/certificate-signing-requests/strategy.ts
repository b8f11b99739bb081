/**
 * What each CertificateSigningRequest endpoint may change, as Kubernetes' csrStrategy,
 * csrStatusStrategy and csrApprovalStrategy: the object itself changes only in metadata (spec
 * and status are kept); `/status` sets status.certificate and conditions other than Approved
 * and Denied; `/approval` sets the conditions. The requester fields of the spec are the
 * server's, taken from the creating user.
 */
import { ApiObject, StrategyContext } from '../../../scheme/types';
import { UserInfo } from '../../../meta/user';
import { errors } from '../../../meta/api-errors';
import { LOOPBACK_USER } from '../../admission-attributes';
import { CsrCondition, CsrSpec, approvalAdditions, conditionsOf, statusOf, validateCsrUpdate } from './validation';

const nowTime = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** v1 defaults: a condition without status is True. */
export function defaultCsr(obj: ApiObject): void {
  for (const c of conditionsOf(obj)) {
    if (isObject(c) && !c.status) c.status = 'True';
  }
}

/** PrepareForCreate: the requester is the creating user (the loopback identity in-process); no status. */
export function prepareCsrCreate(obj: ApiObject, ctx: StrategyContext): void {
  const user: UserInfo = ctx.user ?? LOOPBACK_USER;
  const spec = (isObject(obj.spec) ? obj.spec : {}) as CsrSpec;
  delete spec.username; delete spec.uid; delete spec.groups; delete spec.extra;
  spec.username = user.name;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) {
    spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
  obj.spec = spec;
  obj.status = {};
  defaultCsr(obj);
}

/** PrepareForUpdate of the object itself: spec and status stay as stored. */
export function prepareCsrUpdate(obj: ApiObject, old: ApiObject): void {
  obj.spec = old.spec;
  obj.status = old.status;
}

/**
 * Missing condition timestamps: lastUpdateTime now; lastTransitionTime from the stored
 * condition of the same type and status, else now.
 */
export function populateConditionTimestamps(obj: ApiObject, old?: ApiObject): void {
  const now = nowTime();
  const before = old ? conditionsOf(old) : [];
  for (const c of conditionsOf(obj)) {
    if (!isObject(c)) continue;
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = before.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

function incomingConditions(incoming: ApiObject): CsrCondition[] | undefined {
  const conditions = isObject(incoming.status) ? incoming.status.conditions : undefined;
  return Array.isArray(conditions) ? conditions.map((c) => (isObject(c) ? { ...c } : c)) as CsrCondition[] : undefined;
}

/** The instances of `type` in `next` take the stored values when their count did not change. */
function preserveInstances(next: CsrCondition[], old: CsrCondition[], type: string): void {
  const oldOnes = old.filter((c) => c.type === type);
  const newIdx = next.map((c, i) => (c?.type === type ? i : -1)).filter((i) => i >= 0);
  if (oldOnes.length !== newIdx.length) return;
  newIdx.forEach((idx, i) => { next[idx] = oldOnes[i]; });
}

/**
 * `/status`: the incoming status with the stored Approved and Denied conditions kept. Adding
 * one of those is refused here (422, with the update's other problems), as only `/approval`
 * may; the main validation cannot tell the endpoints apart.
 */
export function applyStatusUpdate(legacySigner: string, group: string, atV1beta1 = false) {
  return (incoming: ApiObject, current: ApiObject): ApiObject => {
    const given = isObject(incoming.status) ? { ...incoming.status } : {};
    const conditions = incomingConditions(incoming);
    const next: ApiObject = { ...current, status: { ...given, ...(conditions ? { conditions } : {}) } };
    defaultCsr(next);
    if (conditions) {
      for (const type of ['Approved', 'Denied']) preserveInstances(conditions, conditionsOf(current), type);
    }
    const added = approvalAdditions(next, current);
    if (added.length) {
      throw errors.invalid('CertificateSigningRequest', group, current.metadata?.name ?? '',
        [...validateCsrUpdate(next, current, legacySigner, atV1beta1), ...added]);
    }
    populateConditionTimestamps(next, current);
    return next;
  };
}

/** `/approval`: only the conditions are taken from the request; the certificate stays. */
export function applyApprovalUpdate(incoming: ApiObject, current: ApiObject): ApiObject {
  const stored = statusOf(current);
  const conditions = incomingConditions(incoming);
  const status: Record<string, unknown> = { ...stored };
  if (conditions) status.conditions = conditions;
  else delete status.conditions;
  const next: ApiObject = { ...current, status };
  defaultCsr(next);
  populateConditionTimestamps(next, current);
  return next;
}
