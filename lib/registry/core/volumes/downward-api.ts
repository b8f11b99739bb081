/**
 * Downward API selectors (fieldRef, resourceFieldRef), shared by downward API volume files and
 * container env vars: which workload fields and container resources may be exposed, checked as
 * Kubernetes' validateObjectFieldSelector and validateContainerResourceFieldSelector do.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';
import { canonicalQuantity } from '../../../meta/quantity';
import { Json, absent, text } from '../json-fields';

/** Fields a downward API volume file may expose. */
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
/** Fields an env var may expose. */
export const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];

const CONVERTIBLE = new Set(['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid',
  'spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName',
  'status.phase', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs']);

const RESOURCES = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const HUGEPAGES_PREFIXES = ['limits.hugepages-', 'requests.hugepages-'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];
const BYTE_DIVISORS_TEXT = 'only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the';

/** `metadata.labels['key']` -> ['metadata.labels', 'key']; undefined when not subscripted. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const at = fieldPath.indexOf("['");
  if (at <= 0) return undefined;
  return [fieldPath.slice(0, at), fieldPath.slice(at + 2, -2)];
}

/** Kubernetes' ConvertDownwardAPIFieldLabel: the internal field path, or the conversion error. */
function convertFieldLabel(apiVersion: string, label: string): { path: string } | { error: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const sub = splitSubscript(label);
  if (sub) {
    return sub[0] === 'metadata.annotations' || sub[0] === 'metadata.labels'
      ? { path: label } : { error: `field label does not support subscript: ${label}` };
  }
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return CONVERTIBLE.has(label) ? { path: label } : { error: `field label not supported: ${label}` };
}

/** Defaults of an ObjectFieldSelector: apiVersion "v1". */
export function defaultFieldRef(fieldRef: Json): void {
  if (absent(fieldRef.apiVersion) || fieldRef.apiVersion === '') fieldRef.apiVersion = 'v1';
}

/** A fieldRef at `path` that may select one of `allowed` (or a label / annotation subscript). */
export function validateObjectFieldSelector(fieldRef: Json, allowed: string[], path: string): FieldError[] {
  const apiVersion = text(fieldRef, 'apiVersion');
  const fieldPath = text(fieldRef, 'fieldPath');
  if (!apiVersion) return [fieldErrors.required(child(path, 'apiVersion'))];
  if (!fieldPath) return [fieldErrors.required(child(path, 'fieldPath'))];
  const converted = convertFieldLabel(apiVersion, fieldPath);
  if ('error' in converted) {
    return [fieldErrors.invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${converted.error}`)];
  }
  const sub = splitSubscript(converted.path);
  if (sub) {
    const key = sub[0] === 'metadata.annotations' ? sub[1].toLowerCase() : sub[1];
    return isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
  }
  return allowed.includes(converted.path) ? [] : [fieldErrors.notSupported(child(path, 'fieldPath'), converted.path, allowed)];
}

/** A resourceFieldRef at `path`; in a volume the container name is required. */
export function validateResourceFieldSelector(ref: Json, path: string, inVolume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = text(ref, 'resource');
  if (inVolume && !text(ref, 'containerName')) errs.push(fieldErrors.required(child(path, 'containerName')));
  else if (!resource) errs.push(fieldErrors.required(child(path, 'resource')));
  else if (!RESOURCES.includes(resource) && !HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    errs.push(fieldErrors.notSupported(child(path, 'resource'), resource, RESOURCES));
  }
  return [...errs, ...validateDivisor(resource, ref.divisor, path)];
}

function validateDivisor(resource: string, divisor: unknown, path: string): FieldError[] {
  const canonical = canonicalQuantity(divisor);
  if (canonical === undefined || canonical === '0') return [];
  const bad = (msg: string) => [fieldErrors.invalid(child(path, 'divisor'), resource, msg)];
  if (resource === 'limits.cpu' || resource === 'requests.cpu') {
    return ['1m', '1'].includes(canonical) ? [] : bad("only divisor's values 1m and 1 are supported with the cpu resource");
  }
  if (resource === 'limits.memory' || resource === 'requests.memory') {
    return BYTE_DIVISORS.includes(canonical) ? [] : bad(`${BYTE_DIVISORS_TEXT} memory resource`);
  }
  if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') {
    return BYTE_DIVISORS.includes(canonical) ? [] : bad(`${BYTE_DIVISORS_TEXT} local ephemeral storage resource`);
  }
  if (HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    return BYTE_DIVISORS.includes(canonical) ? [] : bad(`${BYTE_DIVISORS_TEXT} hugepages resource`);
  }
  return [];
}
