/**
 * The query options of the connect subresources, read as kube-apiserver's parameter codec reads
 * them (PodLogOptions, PodExecOptions, PodAttachOptions, PodPortForwardOptions), PodLogOptions
 * validated with Kubernetes' field paths and messages, and written as the kubelet's query
 * (url.Values.Encode: keys sorted): /containerLogs, /exec, /attach, /portForward (capital F, as the kubelet registers it).
 */
import { errors } from '../meta/api-errors';
import { fieldErrors, type FieldError } from '../meta/field-errors';

/** Go's Convert_Slice_string_To_bool: absent false; `false` and `0` false; anything else true. */
function boolParam(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  if (v === null) return false;
  const l = v.toLowerCase();
  return l !== 'false' && l !== '0';
}

/** Go's Convert_Slice_string_To_Pointer_int64 (strconv.ParseInt's error on bad text). */
function intParam(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?[0-9]+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

/** url.Values.Encode: keys sorted, each key's values in order. */
function encode(values: [string, string][]): string {
  const q = new URLSearchParams();
  for (const [k, v] of [...values].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) q.append(k, v);
  return q.toString();
}

export interface LogOptions {
  container?: string;
  query: string;
  follow: boolean;
  /** The kubelet's serving certificate is not checked for this request (kube's InsecureSkipTLSVerifyTransport). */
  insecureSkipTLSVerifyBackend: boolean;
}

/** PodLogOptions from the query, validated (422 PodLogOptions with Kubernetes' causes), and the kubelet's query. */
export function logOptions(q: URLSearchParams, podName: string): LogOptions {
  const tailLines = intParam(q, 'tailLines');
  const limitBytes = intParam(q, 'limitBytes');
  const sinceSeconds = intParam(q, 'sinceSeconds');
  const rawSince = q.get('sinceTime');
  let sinceTime: Date | undefined;
  if (rawSince) {
    // RFC 3339 as Go's time.RFC3339 parses it (fractional seconds allowed).
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(rawSince) || Number.isNaN(Date.parse(rawSince))) {
      throw errors.badRequest(`parsing time ${JSON.stringify(rawSince)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(rawSince)} as RFC 3339`);
    }
    sinceTime = new Date(rawSince);
  }
  const causes: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0) causes.push(fieldErrors.invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1) causes.push(fieldErrors.invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== undefined) {
    causes.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (sinceSeconds !== undefined && sinceSeconds < 1) {
    causes.push(fieldErrors.invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  }
  if (causes.length) throw errors.invalid('PodLogOptions', '', podName, causes);
  const follow = boolParam(q, 'follow');
  const out: [string, string][] = [];
  if (follow) out.push(['follow', 'true']);
  if (boolParam(q, 'previous')) out.push(['previous', 'true']);
  if (boolParam(q, 'timestamps')) out.push(['timestamps', 'true']);
  if (sinceSeconds !== undefined) out.push(['sinceSeconds', String(sinceSeconds)]);
  // Go's time.RFC3339: whole seconds, Z for UTC.
  if (sinceTime) out.push(['sinceTime', sinceTime.toISOString().replace(/\.\d{3}Z$/, 'Z')]);
  if (tailLines !== undefined) out.push(['tailLines', String(tailLines)]);
  if (limitBytes !== undefined) out.push(['limitBytes', String(limitBytes)]);
  return { container: q.get('container') || undefined, query: encode(out), follow, insecureSkipTLSVerifyBackend: boolParam(q, 'insecureSkipTLSVerifyBackend') };
}

/** PodExecOptions / PodAttachOptions: the kubelet's query (`input`, `output`, `error`, `tty`, each `command`). */
export function streamOptions(q: URLSearchParams, withCommand: boolean): { container?: string; query: string } {
  const out: [string, string][] = [];
  if (boolParam(q, 'stdin')) out.push(['input', '1']);
  if (boolParam(q, 'stdout')) out.push(['output', '1']);
  if (boolParam(q, 'stderr')) out.push(['error', '1']);
  if (boolParam(q, 'tty')) out.push(['tty', '1']);
  if (withCommand) for (const c of q.getAll('command')) out.push(['command', c]);
  return { container: q.get('container') || undefined, query: encode(out) };
}

/** PodPortForwardOptions: `ports` as the kubelet's `port` (comma-joined). */
export function portForwardQuery(q: URLSearchParams): string {
  const ports = q.getAll('ports').flatMap((p) => p.split(',')).filter((p) => p !== '');
  for (const p of ports) {
    if (!/^[0-9]+$/.test(p) || Number(p) > 2147483647) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(p)}: invalid syntax`);
  }
  return ports.length ? encode([['port', ports.join(',')]]) : '';
}
