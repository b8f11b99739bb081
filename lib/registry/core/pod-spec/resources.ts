/**
 * A container's (or the pod's) resource requirements as Kubernetes' validation checks them:
 * resource names standard or extended, quantities not negative (integers for extended
 * resources), and each request no more than its limit (equal for resources that cannot be
 * overcommitted).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';
import { compareQuantities, formatQuantity, tryParseQuantity } from '../../../meta/quantity';
import { validateNonnegativeQuantity } from '../resource-quantities';
import { Json, isObject, record } from '../json-fields';

const CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const STANDARD_RESOURCES = [...CONTAINER_RESOURCES, 'storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas',
  'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers',
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'];

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** Native resources have no domain or a kubernetes.io one. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && !isQualifiedName(`requests.${name}`).length;
/** helper.IsOvercommitAllowed: native resources other than huge pages. */
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** validateContainerResourceName (exported for the HPA's containerResource metrics). */
export function validateResourceName(name: string, path: string): FieldError[] {
  const msgs = isQualifiedName(name);
  if (msgs.length) return msgs.map((m) => fieldErrors.invalid(path, name, m));
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.includes(name) && !isHugePages(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified')];
    if (!CONTAINER_RESOURCES.includes(name) && !isHugePages(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource for containers')];
  } else if (!isNative(name) && !isExtended(name)) {
    return [fieldErrors.invalid(path, name, "doesn't follow extended resource name standard")];
  }
  return [];
}

/** ValidateResourceQuantityValue: not negative (ValidateNonnegativeQuantity); whole numbers for extended resources. */
function validateQuantity(name: string, raw: unknown, path: string): FieldError[] {
  const errs = validateNonnegativeQuantity(raw, path);
  const q = tryParseQuantity(raw);
  if (!errs.length && q && isExtended(name)) {
    const milli = q.scale >= -3 ? q.value * 10n ** BigInt(q.scale + 3) : undefined;
    if (milli === undefined || milli % 1000n !== 0n) errs.push(fieldErrors.invalid(path, formatQuantity(q), 'must be an integer'));
  }
  return errs;
}

/** ValidateContainerResourceRequirements of `resources` at `path`. */
export function validateResourceRequirements(resources: Json | undefined, path: string): FieldError[] {
  if (!resources) return [];
  const limits = record(resources, 'limits') ?? {};
  const requests = record(resources, 'requests') ?? {};
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const errs: FieldError[] = [];
  for (const [name, raw] of Object.entries(limits)) {
    errs.push(...validateResourceName(name, index(limPath, name)), ...validateQuantity(name, raw, index(limPath, name)));
  }
  for (const [name, raw] of Object.entries(requests)) {
    errs.push(...validateResourceName(name, index(reqPath, name)), ...validateQuantity(name, raw, index(reqPath, name)));
    const req = tryParseQuantity(raw);
    const lim = Object.hasOwn(limits, name) ? tryParseQuantity(limits[name]) : undefined;
    if (req && lim) {
      const cmp = compareQuantities(req, lim);
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(fieldErrors.invalid(reqPath, formatQuantity(req), `must be equal to ${name} limit of ${formatQuantity(lim)}`));
      } else if (cmp > 0) {
        errs.push(fieldErrors.invalid(reqPath, formatQuantity(req), `must be less than or equal to ${name} limit of ${formatQuantity(lim)}`));
      }
    } else if (req && !Object.hasOwn(limits, name) && !overcommitAllowed(name)) {
      errs.push(fieldErrors.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
  }
  const claims = Array.isArray(resources.claims) ? resources.claims : [];
  const seen = new Set<string>();
  claims.forEach((c, i) => {
    const name = isObject(c) && typeof c.name === 'string' ? c.name : '';
    const at = index(child(path, 'claims'), i);
    if (!name) errs.push(fieldErrors.required(child(at, 'name')));
    else if (seen.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    seen.add(name);
  });
  return errs;
}
