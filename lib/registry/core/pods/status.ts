/**
 * A Pod's status: what a new Pod starts with (phase Pending), how the single and plural IP
 * fields are kept in step, and the checks of a status write (Kubernetes' ValidatePodStatusUpdate
 * for the fields served here).
 */
import { isIP } from 'node:net';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Subdomain, isQualifiedName } from '../../../meta/validation';
import { Json, record, records, text } from '../json-fields';

/** Conditions the system owns; other condition types must be qualified names. */
const SYSTEM_CONDITIONS = ['PodScheduled', 'Ready', 'Initialized'];
const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** The status of a new Pod: Pending, with its QoS class (which never changes afterwards). */
export const initialPodStatus = (qosClass: string): Json => ({ phase: 'Pending', qosClass });

/**
 * Keeps podIP/podIPs and hostIP/hostIPs in step as Kubernetes' conversion does: the single
 * field wins when both are set and differ; each fills the other when it is missing.
 */
export function normalizePodStatusIPs(status: Json): void {
  for (const [single, plural] of [['podIP', 'podIPs'], ['hostIP', 'hostIPs']] as const) {
    const ip = text(status, single);
    const list = records(status, plural);
    if (ip && (!list.length || text(list[0], 'ip') !== ip)) status[plural] = [{ ip }];
    else if (!ip && list.length) status[single] = text(list[0], 'ip');
  }
}

function validateIPList(list: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    const ip = text(entry, 'ip');
    if (!isIP(ip)) errs.push(fieldErrors.invalid(index(path, i), ip, IP_MSG));
    if (seen.has(ip)) errs.push(fieldErrors.duplicate(index(path, i), entry));
    seen.add(ip);
  });
  if (list.length > 1) {
    const families = list.map((e) => isIP(text(e, 'ip')));
    const dualStack = families.includes(4) && families.includes(6);
    if (!dualStack || list.length > 2) errs.push(fieldErrors.invalid(path, list, 'may specify no more than one IP for each IP family'));
  }
  return errs;
}

/** Kubernetes forbids a container that will not restart from leaving the terminated state. */
function validateStateTransitions(status: Json, old: Json, restartPolicy: string): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  records(old, 'containerStatuses').forEach((oldStatus, i) => {
    const terminated = record(record(oldStatus, 'state') ?? {}, 'terminated');
    if (!terminated) return;
    if ((terminated.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    for (const now of records(status, 'containerStatuses')) {
      if (text(now, 'name') === text(oldStatus, 'name') && !record(record(now, 'state') ?? {}, 'terminated')) {
        errs.push(fieldErrors.forbidden(child(index('status.containerStatuses', i), 'state'), 'may not be transitioned to non-terminated state'));
      }
    }
  });
  return errs;
}

/** Errors of changing status `old` into `status`; `restartPolicy` is the Pod's. */
export function validatePodStatusUpdate(status: Json, old: Json, restartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  records(status, 'conditions').forEach((c, i) => {
    const type = text(c, 'type');
    if (SYSTEM_CONDITIONS.includes(type)) return;
    // Kubernetes reports these under `metadata.conditions`, with `Type` capitalised.
    errs.push(...isQualifiedName(type).map((m) => fieldErrors.invalid(child(index('metadata.conditions', i), 'Type'), type, m)));
  });
  const nominated = text(status, 'nominatedNodeName');
  if (nominated && nominated !== text(old, 'nominatedNodeName')) {
    errs.push(...isDns1123Subdomain(nominated).map((m) => fieldErrors.invalid('status.nominatedNodeName', nominated, m)));
  }
  if (text(status, 'qosClass') !== text(old, 'qosClass')) errs.push(fieldErrors.immutable('status.qosClass', text(status, 'qosClass')));
  errs.push(...validateStateTransitions(status, old, restartPolicy));
  errs.push(...validateIPList(records(status, 'podIPs'), 'status.podIPs'));
  errs.push(...validateIPList(records(status, 'hostIPs'), 'status.hostIPs'));
  return errs;
}
