/**
 * The three kinds of containers of a pod and what each may hold (Kubernetes' validateContainers,
 * validateInitContainers, validateEphemeralContainers): regular containers have probes and
 * lifecycle hooks but no restartPolicy; init containers only with restartPolicy Always (sidecars);
 * ephemeral containers neither ports, probes, lifecycle nor resources. Names are unique across
 * all of them.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { Json, record, records, text } from '../json-fields';
import { ContainerContext, validateContainerCommon } from './containers';
import { validateHostPortConflicts } from './ports';
import { ProbeKind, validateLifecycle, validateProbe } from './probes';

const PROBES: ProbeKind[] = ['livenessProbe', 'readinessProbe', 'startupProbe'];
const NOT_SIDECAR = 'may not be set for init containers without restartPolicy=Always';
const EPHEMERAL_FORBIDDEN = ['lifecycle', 'livenessProbe', 'readinessProbe', 'resizePolicy', 'resources', 'startupProbe'];

/** Also knows the pod's grace period, which bounds sleep actions. */
export interface PodContainerContext extends ContainerContext {
  gracePeriod: number | undefined;
}

function validateProbesAndLifecycle(c: Json, ctx: PodContainerContext, path: string): FieldError[] {
  const lifecycle = record(c, 'lifecycle');
  return [
    ...(lifecycle ? validateLifecycle(lifecycle, ctx.gracePeriod, child(path, 'lifecycle')) : []),
    ...PROBES.flatMap((kind) => validateProbe(record(c, kind), kind, ctx.gracePeriod, child(path, kind))),
  ];
}

/** validateContainers of spec.containers at `path`: at least one, names unique among them. */
export function validateContainers(containers: Json[], ctx: PodContainerContext, path: string): FieldError[] {
  if (!containers.length) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const at = index(path, i);
    const name = text(c, 'name');
    errs.push(...validateContainerCommon(c, ctx, at));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    names.add(name);
    errs.push(...validateProbesAndLifecycle(c, ctx, at));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      errs.push(fieldErrors.forbidden(child(at, 'restartPolicy'), 'may not be set for non-init containers'));
    }
  });
  return [...errs, ...validateHostPortConflicts(containers, path)];
}

/** validateInitContainers at `path`; `regular` are spec.containers, whose names they may not reuse. */
export function validateInitContainers(containers: Json[], regular: Json[], ctx: PodContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(regular.map((c) => text(c, 'name')));
  containers.forEach((c, i) => {
    const at = index(path, i);
    errs.push(...validateContainerCommon(c, ctx, at));
    let sidecar = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      sidecar = c.restartPolicy === 'Always';
      if (!sidecar) errs.push(fieldErrors.notSupported(child(at, 'restartPolicy'), c.restartPolicy, ['Always']));
    }
    const name = text(c, 'name');
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    else if (name) names.add(name);
    // Init containers run one by one: host ports only conflict within one of them.
    errs.push(...validateHostPortConflicts([c], path).map((e) => ({ ...e, field: e.field.replace(`${path}[0]`, at) })));
    if (sidecar) errs.push(...validateProbesAndLifecycle(c, ctx, at));
    else {
      for (const key of ['lifecycle', ...PROBES]) if (record(c, key)) errs.push(fieldErrors.forbidden(child(at, key), NOT_SIDECAR));
    }
    if (records(c, 'resizePolicy').length) errs.push(fieldErrors.invalid(child(at, 'resizePolicy'), c.resizePolicy, 'must not be set for init containers'));
  });
  return errs;
}

/** validateEphemeralContainers: new names, targets that exist, and none of the forbidden fields. */
export function validateEphemeralContainers(containers: Json[], others: Json[], ctx: PodContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const otherNames = new Set(others.map((c) => text(c, 'name')));
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const at = index(path, i);
    const name = text(c, 'name');
    if (otherNames.has(name) || names.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    names.add(name);
    const target = text(c, 'targetContainerName');
    if (target && !otherNames.has(target)) errs.push(fieldErrors.notFound(child(at, 'targetContainerName'), target));
    errs.push(...validateContainerCommon({ ...c, resources: undefined }, ctx, at));
    if (records(c, 'ports').length) errs.push(fieldErrors.forbidden(child(at, 'ports'), 'cannot be set for an Ephemeral Container'));
    for (const key of EPHEMERAL_FORBIDDEN) {
      const v = c[key];
      const empty = v === undefined || v === null || (key === 'resources' && JSON.stringify(v) === '{}') || (Array.isArray(v) && !v.length);
      if (!empty) errs.push(fieldErrors.forbidden(child(at, key), 'cannot be set for an Ephemeral Container'));
    }
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(fieldErrors.forbidden(child(at, 'restartPolicy'), 'cannot be set for an Ephemeral Container'));
  });
  return errs;
}
