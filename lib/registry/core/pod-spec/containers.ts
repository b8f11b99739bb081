/**
 * What every container of a pod is checked for, whatever its kind (Kubernetes'
 * validateContainerCommon): name, image, termination message policy, ports, env and envFrom,
 * volume mounts and devices, pull policy, resources, resize policy and security context; and
 * the image pull policy default.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';
import { Json, isObject, record, records, text } from '../json-fields';
import { validateLocalDescendingPath } from '../volumes/local-path';
import { ENV_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from '../volumes/downward-api';
import { configKeyErrors } from '../config-data';
import { validateContainerPorts } from './ports';
import { validateResourceRequirements } from './resources';
import { isPrivileged, validateContainerSecurityContext } from './security-context';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const RESIZE_RESOURCES = ['cpu', 'memory'];
const RESIZE_POLICIES = ['NotRequired', 'RestartContainer'];
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

const envNameErrors = (name: string): string[] => ([...name].some((ch) => ch < ' ' || ch > '~' || ch === '=') ? [ENV_NAME_MSG] : []);

function validateEnv(env: Json[], path: string): FieldError[] {
  return env.flatMap((e, i) => {
    const itemPath = index(path, i);
    const name = text(e, 'name');
    const errs: FieldError[] = [];
    if (!name) errs.push(fieldErrors.required(child(itemPath, 'name')));
    // Kubernetes 1.32 accepts any printable ASCII but '=' (RelaxedEnvironmentVariableValidation, beta).
    else errs.push(...envNameErrors(name).map((m) => fieldErrors.invalid(child(itemPath, 'name'), name, m)));
    return [...errs, ...validateValueFrom(e, child(itemPath, 'valueFrom'))];
  });
}

/** validateEnvFrom: a valid prefix and exactly one source per entry. */
function validateEnvFrom(envFrom: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  envFrom.forEach((e, i) => {
    const at = index(path, i);
    const prefix = text(e, 'prefix');
    if (prefix) errs.push(...envNameErrors(prefix).map((m) => fieldErrors.invalid(child(at, 'prefix'), prefix, m)));
    const sources = ['configMapRef', 'secretRef'].filter((k) => isObject(e[k]));
    for (const k of sources) {
      const name = text(e[k] as Json, 'name');
      if (!name) errs.push(fieldErrors.required(child(child(at, k), 'name')));
      else errs.push(...isDns1123Subdomain(name).map((m) => fieldErrors.invalid(child(child(at, k), 'name'), name, m)));
    }
    if (!sources.length) errs.push(fieldErrors.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources.length > 1) errs.push(fieldErrors.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** ValidateVolumeMounts; some paths are reported on the list itself, as Kubernetes does. */
function validateVolumeMounts(mounts: Json[], volumes: Set<string>, privileged: boolean, path: string): FieldError[] {
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
      if (propagation === 'Bidirectional' && !privileged) errs.push(fieldErrors.forbidden(at, 'Bidirectional mount propagation is available only to privileged containers'));
    }
    const rro = m.recursiveReadOnly;
    if (typeof rro === 'string') {
      const at = child(itemPath, 'recursiveReadOnly');
      if (!RECURSIVE_READ_ONLY.includes(rro)) errs.push(fieldErrors.notSupported(at, rro, RECURSIVE_READ_ONLY));
      else if (rro !== 'Disabled') {
        if (m.readOnly !== true) errs.push(fieldErrors.forbidden(at, 'may only be specified when readOnly is true'));
        if (typeof propagation === 'string' && propagation !== 'None') errs.push(fieldErrors.forbidden(at, 'may only be specified when mountPropagation is None or not specified'));
      }
    }
  });
  return errs;
}

/** ValidateVolumeDevices: named volumes, unique device paths that are not mount paths. */
function validateVolumeDevices(devices: Json[], mounts: Json[], volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const paths = new Set<string>();
  const mountNames = new Set(mounts.map((m) => text(m, 'name')));
  const mountPaths = new Set(mounts.map((m) => text(m, 'mountPath')));
  devices.forEach((d, i) => {
    const at = index(path, i);
    const name = text(d, 'name');
    const devicePath = text(d, 'devicePath');
    if (!name) errs.push(fieldErrors.required(child(at, 'name')));
    if (names.has(name)) errs.push(fieldErrors.invalid(child(at, 'name'), name, 'must be unique'));
    if (!volumes.has(name)) errs.push(fieldErrors.notFound(child(at, 'name'), name));
    if (!devicePath) errs.push(fieldErrors.required(child(at, 'devicePath')));
    if (paths.has(devicePath)) errs.push(fieldErrors.invalid(child(at, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath.split('/').includes('..')) errs.push(fieldErrors.invalid(child(at, 'devicePath'), devicePath, "can not contain backsteps ('..')"));
    if (mountNames.has(name)) errs.push(fieldErrors.invalid(child(at, 'name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(fieldErrors.invalid(child(at, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    names.add(name);
    paths.add(devicePath);
  });
  return errs;
}

function validateResizePolicy(policies: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  policies.forEach((p, i) => {
    const at = index(path, i);
    const name = text(p, 'resourceName');
    if (seen.has(name)) errs.push(fieldErrors.duplicate(child(at, 'resourceName'), name));
    seen.add(name);
    if (!RESIZE_RESOURCES.includes(name)) errs.push(fieldErrors.notSupported(child(at, 'resourceName'), name, RESIZE_RESOURCES));
    const policy = text(p, 'restartPolicy');
    if (!RESIZE_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported(child(at, 'restartPolicy'), policy, RESIZE_POLICIES));
  });
  return errs;
}

/** What the common container checks need to know about the pod. */
export interface ContainerContext {
  /** Names of the pod's valid volumes. */
  volumes: Set<string>;
  /** spec.hostUsers (true when unset). */
  hostUsers: boolean;
}

/** validateContainerCommon for the container `c` at `path`. */
export function validateContainerCommon(c: Json, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = text(c, 'name');
  if (!name) errs.push(fieldErrors.required(child(path, 'name')));
  else errs.push(...isDns1123Label(name).map((m) => fieldErrors.invalid(child(path, 'name'), name, m)));
  if (!text(c, 'image')) errs.push(fieldErrors.required(child(path, 'image')));
  const messagePolicy = text(c, 'terminationMessagePolicy');
  if (!messagePolicy) errs.push(fieldErrors.required(child(path, 'terminationMessagePolicy')));
  else if (!MESSAGE_POLICIES.includes(messagePolicy)) errs.push(fieldErrors.notSupported(child(path, 'terminationMessagePolicy'), messagePolicy, MESSAGE_POLICIES));
  errs.push(...validateContainerPorts(records(c, 'ports'), child(path, 'ports')));
  errs.push(...validateEnvFrom(records(c, 'envFrom'), child(path, 'envFrom')));
  errs.push(...validateEnv(records(c, 'env'), child(path, 'env')));
  errs.push(...validateVolumeMounts(records(c, 'volumeMounts'), ctx.volumes, isPrivileged(c), child(path, 'volumeMounts')));
  errs.push(...validateVolumeDevices(records(c, 'volumeDevices'), records(c, 'volumeMounts'), ctx.volumes, child(path, 'volumeDevices')));
  const policy = text(c, 'imagePullPolicy');
  if (!policy) errs.push(fieldErrors.required(child(path, 'imagePullPolicy')));
  else if (!PULL_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported(child(path, 'imagePullPolicy'), policy, PULL_POLICIES));
  errs.push(...validateResourceRequirements(record(c, 'resources'), child(path, 'resources')));
  errs.push(...validateResizePolicy(records(c, 'resizePolicy'), child(path, 'resizePolicy')));
  errs.push(...validateContainerSecurityContext(record(c, 'securityContext'), ctx.hostUsers, child(path, 'securityContext')));
  return errs;
}
