/**
 * Container ports as Kubernetes' validation checks them: numbers in range, IANA service names
 * unique within a container, a supported protocol, host ports unique per protocol and host IP
 * across the containers that run together, and host ports equal to container ports on the
 * host network.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { Json, records, text } from '../json-fields';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
/** validation.InclusiveRangeError(1, 65535). */
export const PORT_RANGE_MSG = 'must be between 1 and 65535, inclusive';

/** IsValidPortNum: the messages for `port`, none when it is a port number. */
export function portNumErrors(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [PORT_RANGE_MSG];
}

/** IsValidPortName: an IANA_SVC_NAME (at most 15 lower-case letters, digits and single inner hyphens). */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName: an IntOrString port of a probe or handler. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string') return portNameErrors(port).map((m) => fieldErrors.invalid(path, port, m));
  if (port === undefined || port === null) return [fieldErrors.invalid(path, 0, PORT_RANGE_MSG)];
  return portNumErrors(port).map((m) => fieldErrors.invalid(path, port, m));
}

/** validateContainerPorts for one container's `ports` at `path`. */
export function validateContainerPorts(ports: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = index(path, i);
    const name = text(port, 'name');
    if (name) {
      const msgs = portNameErrors(name);
      if (msgs.length) errs.push(...msgs.map((m) => fieldErrors.invalid(child(at, 'name'), name, m)));
      else if (names.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
      else names.add(name);
    }
    if (!port.containerPort) errs.push(fieldErrors.required(child(at, 'containerPort')));
    else errs.push(...portNumErrors(port.containerPort).map((m) => fieldErrors.invalid(child(at, 'containerPort'), port.containerPort, m)));
    if (port.hostPort) errs.push(...portNumErrors(port.hostPort).map((m) => fieldErrors.invalid(child(at, 'hostPort'), port.hostPort, m)));
    const protocol = text(port, 'protocol');
    if (!protocol) errs.push(fieldErrors.required(child(at, 'protocol')));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(child(at, 'protocol'), protocol, PROTOCOLS));
  });
  return errs;
}

/** checkHostPortConflicts: a protocol/hostIP/hostPort triple used once among `containers` (at `path`). */
export function validateHostPortConflicts(containers: Json[], path: string, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    records(c, 'ports').forEach((port, pi) => {
      if (!port.hostPort) return;
      const key = `${text(port, 'protocol')}/${text(port, 'hostIP')}/${String(port.hostPort)}`;
      if (seen.has(key)) errs.push(fieldErrors.duplicate(child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), key));
      seen.add(key);
    });
  });
  return errs;
}

/** validateHostNetwork: on the host network a container's hostPort must be its containerPort. */
export function validateHostNetworkPorts(containers: Json[], path: string, isPod = true): FieldError[] {
  return containers.flatMap((c, ci) => records(c, 'ports').flatMap((port, pi) => (
    // Outside a Pod an unset host port is allowed: the Pod made from the template defaults it.
    (port.hostPort ?? 0) === port.containerPort || (!isPod && !port.hostPort) ? [] : [fieldErrors.invalid(
      child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), port.hostPort ?? 0, 'must match `containerPort` when `hostNetwork` is true')]
  )));
}
