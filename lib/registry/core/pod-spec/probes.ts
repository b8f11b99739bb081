/**
 * Probes and lifecycle hooks as Kubernetes' validation checks them: exactly one handler, each
 * handler well formed (command, path, port, scheme, header names, sleep within the grace
 * period), counts not negative, and the probe-kind rules (liveness and startup succeed once;
 * readiness has no grace period of its own).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { Json, items, record, text } from '../json-fields';
import { portNumErrors, validatePortNumOrName } from './ports';

const SCHEMES = ['HTTP', 'HTTPS'];
const HEADER_MSG = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";
const NEGATIVE_MSG = 'must be greater than or equal to 0';

/** The probe kinds, which differ in the rules on top of validateProbe. */
export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

function validateHTTPGet(h: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(h, 'path')) errs.push(fieldErrors.required(child(path, 'path')));
  errs.push(...validatePortNumOrName(h.port, child(path, 'port')));
  const scheme = text(h, 'scheme');
  if (!SCHEMES.includes(scheme)) errs.push(fieldErrors.notSupported(child(path, 'scheme'), scheme, SCHEMES));
  for (const header of items(h, 'httpHeaders')) {
    const name = typeof (header as Json)?.name === 'string' ? (header as Json).name as string : '';
    if (!/^[-A-Za-z0-9]+$/.test(name)) errs.push(fieldErrors.invalid(child(path, 'httpHeaders'), name, HEADER_MSG));
  }
  return errs;
}

function validateSleep(sleep: Json, gracePeriod: number | undefined, path: string): FieldError[] {
  const seconds = typeof sleep.seconds === 'number' ? sleep.seconds : 0;
  if (gracePeriod === undefined || (seconds > 0 && seconds <= gracePeriod)) return [];
  return [fieldErrors.invalid(path, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod})`)];
}

/** validateHandler: one and only one of the handler's actions, each valid. */
export function validateHandler(handler: Json, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let handlers = 0;
  const one = (name: string, check: (action: Json, at: string) => FieldError[]) => {
    const action = record(handler, name);
    if (!action) return;
    if (handlers > 0) {
      errs.push(fieldErrors.forbidden(child(path, name), 'may not specify more than 1 handler type'));
      return;
    }
    handlers++;
    errs.push(...check(action, child(path, name)));
  };
  one('exec', (a, at) => (items(a, 'command').length ? [] : [fieldErrors.required(child(at, 'command'))]));
  one('httpGet', validateHTTPGet);
  one('tcpSocket', (a, at) => validatePortNumOrName(a.port, child(at, 'port')));
  one('grpc', (a, at) => portNumErrors(a.port).map((m) => fieldErrors.invalid(child(at, 'port'), a.port ?? 0, m)));
  one('sleep', (a, at) => validateSleep(a, gracePeriod, at));
  if (!handlers) errs.push(fieldErrors.required(path, 'must specify a handler type'));
  return errs;
}

/** validateProbe plus the rules of its kind; nothing when the probe is absent. */
export function validateProbe(probe: Json | undefined, kind: ProbeKind, gracePeriod: number | undefined, path: string): FieldError[] {
  if (!probe) return [];
  const errs = validateHandler(probe, gracePeriod, path);
  for (const key of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = probe[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(child(path, key), v, NEGATIVE_MSG));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace <= 0) errs.push(fieldErrors.invalid(child(path, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  if (kind === 'readinessProbe' && typeof grace === 'number') {
    errs.push(fieldErrors.invalid(child(path, 'terminationGracePeriodSeconds'), grace, 'must not be set for readinessProbes'));
  }
  if (kind !== 'readinessProbe' && probe.successThreshold !== 1) {
    errs.push(fieldErrors.invalid(child(path, 'successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  }
  return errs;
}

/** validateLifecycle: each of postStart and preStop that is set. */
export function validateLifecycle(lifecycle: Json, gracePeriod: number | undefined, path: string): FieldError[] {
  return ['postStart', 'preStop'].flatMap((name) => {
    const handler = record(lifecycle, name);
    return handler ? validateHandler(handler, gracePeriod, child(path, name)) : [];
  });
}
