/**
 * A workload's containers: names (DNS labels, unique), images, env vars (names and valueFrom
 * sources) and volume mounts (of valid volumes, unique mount paths, local sub-paths), checked
 * as Kubernetes' validateContainers does, and the image pull policy default.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../meta/validation';
import { Json, record, records, text } from './volumes/json-fields';
import { validateLocalDescendingPath } from './volumes/local-path';
import { ENV_FIELD_PATHS, defaultFieldRef, validateObjectFieldSelector, validateResourceFieldSelector } from './volumes/downward-api';
import { configKeyErrors } from './config-data';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const ENV_NAME_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='";

/** SetDefaults_Container's pull policy: Always for a `latest` (or untagged, undigested) image, else IfNotPresent. */
export function defaultPullPolicy(image: string): string {
  const [name, digest] = image.split('@');
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : (digest ? '' : 'latest');
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** A ConfigMap or Secret key selector of an env var. */
function validateKeySelector(ref: Json, path: string): FieldError[] {
  const name = text(ref, 'name');
  const key = text(ref, 'key');
  const errs = isDns1123Subdomain(name).map((m) => fieldErrors.invalid(child(path, 'name'), name, m));
  if (!key) errs.push(fieldErrors.required(child(path, 'key')));
  else errs.push(...configKeyErrors(key).map((m) => fieldErrors.invalid(child(path, 'key'), key, m)));
  return errs;
}

/** validateEnvVarValueFrom: exactly one source, and none with a non-empty value. */
function validateValueFrom(env: Json, path: string): FieldError[] {
  const from = record(env, 'valueFrom');
  if (!from) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  const fieldRef = record(from, 'fieldRef');
  const resourceFieldRef = record(from, 'resourceFieldRef');
  const configMapKeyRef = record(from, 'configMapKeyRef');
  const secretKeyRef = record(from, 'secretKeyRef');
  if (fieldRef) { sources++; errs.push(...validateObjectFieldSelector(fieldRef, ENV_FIELD_PATHS, child(path, 'fieldRef'))); }
  if (resourceFieldRef) { sources++; errs.push(...validateResourceFieldSelector(resourceFieldRef, child(path, 'resourceFieldRef'), false)); }
  if (configMapKeyRef) { sources++; errs.push(...validateKeySelector(configMapKeyRef, child(path, 'configMapKeyRef'))); }
  if (secretKeyRef) { sources++; errs.push(...validateKeySelector(secretKeyRef, child(path, 'secretKeyRef'))); }
  if (!sources) errs.push(fieldErrors.invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (text(env, 'value')) errs.push(fieldErrors.invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errs.push(fieldErrors.invalid(path, '', 'may not have more than one field specified at a time'));
  return errs;
}

function validateEnv(env: Json[], path: string): FieldError[] {
  return env.flatMap((e, i) => {
    const itemPath = index(path, i);
    const name = text(e, 'name');
    const errs: FieldError[] = [];
    if (!name) errs.push(fieldErrors.required(child(itemPath, 'name')));
    // Kubernetes 1.32 accepts any printable ASCII but '=' (RelaxedEnvironmentVariableValidation, beta).
    else if ([...name].some((ch) => ch < ' ' || ch > '~' || ch === '=')) errs.push(fieldErrors.invalid(child(itemPath, 'name'), name, ENV_NAME_MSG));
    return [...errs, ...validateValueFrom(e, child(itemPath, 'valueFrom'))];
  });
}

/** ValidateVolumeMounts; some paths are reported on the list itself, as Kubernetes does. */
function validateVolumeMounts(mounts: Json[], volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  mounts.forEach((m, i) => {
    const itemPath = index(path, i);
    const name = text(m, 'name');
    const mountPath = text(m, 'mountPath');
    if (!name) errs.push(fieldErrors.required(child(itemPath, 'name')));
    if (!volumes.has(name)) errs.push(fieldErrors.notFound(child(itemPath, 'name'), name));
    if (!mountPath) errs.push(fieldErrors.required(child(itemPath, 'mountPath')));
    if (mountPoints.has(mountPath)) errs.push(fieldErrors.invalid(child(itemPath, 'mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    const subPath = text(m, 'subPath');
    const subPathExpr = text(m, 'subPathExpr');
    if (subPath) errs.push(...validateLocalDescendingPath(subPath, child(path, 'subPath')));
    if (subPathExpr) {
      if (subPath) errs.push(fieldErrors.invalid(child(itemPath, 'subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subPathExpr, child(path, 'subPathExpr')));
    }
    const propagation = m.mountPropagation;
    if (typeof propagation === 'string') {
      const at = child(path, 'mountPropagation');
      if (!PROPAGATIONS.includes(propagation)) errs.push(fieldErrors.notSupported(at, propagation, PROPAGATIONS));
      // No container here can be privileged (the schema has no securityContext).
      if (propagation === 'Bidirectional') errs.push(fieldErrors.forbidden(at, 'Bidirectional mount propagation is available only to privileged containers'));
    }
  });
  return errs;
}

/**
 * validateContainers at `path` (e.g. `spec.containers`): at least one; each with a valid,
 * unique name, an image, a supported pull policy, valid env vars and mounts of `volumes`.
 */
export function validateContainers(containers: Json[], volumes: Set<string>, path: string): FieldError[] {
  if (!containers.length) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const itemPath = index(path, i);
    const name = text(c, 'name');
    if (!name) errs.push(fieldErrors.required(child(itemPath, 'name')));
    else errs.push(...isDns1123Label(name).map((m) => fieldErrors.invalid(child(itemPath, 'name'), name, m)));
    if (!text(c, 'image')) errs.push(fieldErrors.required(child(itemPath, 'image')));
    errs.push(...validateEnv(records(c, 'env'), child(itemPath, 'env')));
    errs.push(...validateVolumeMounts(records(c, 'volumeMounts'), volumes, child(itemPath, 'volumeMounts')));
    const policy = text(c, 'imagePullPolicy');
    if (!policy) errs.push(fieldErrors.required(child(itemPath, 'imagePullPolicy')));
    else if (!PULL_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported(child(itemPath, 'imagePullPolicy'), policy, PULL_POLICIES));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(itemPath, 'name'), name));
    names.add(name);
  });
  return errs;
}
