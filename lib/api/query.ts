/**
 * Query parameters of resource requests, parsed strictly: a malformed value is 400 with the
 * parameter named, never silently ignored.
 */
import { ApiError, errors } from '../meta/api-errors';
import { fieldErrors } from '../meta/field-errors';
import { parseLabelSelector, isEmpty as labelSelectorIsEmpty } from '../meta/label-selector';
import { parseFieldSelector } from '../meta/field-selector';
import { DeleteOptions, ListOptions } from '../registry/options';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool spellings; an absent parameter is false and a bare `?watch` is true. */
export function parseBool(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  if (value === '' || TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw errors.badRequest(`invalid boolean value ${JSON.stringify(value)} for query parameter ${name}`);
}

export function parseInteger(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw errors.badRequest(`invalid value ${JSON.stringify(value)} for query parameter ${name}: must be an integer${min === 0 ? ' >= 0' : ''}`);
  }
  return Number(value);
}

/**
 * `dryRun` may be given as `?dryRun`, `?dryRun=All`, or repeated; anything else is 400 (as the
 * project's issue asks; Kubernetes answers 422), keeping Kubernetes' message and field cause
 * (`CreateOptions.meta.k8s.io "" is invalid: dryRun: ...`).
 */
export function parseDryRun(query: URLSearchParams, optionsKind = 'CreateOptions'): boolean {
  const values = query.getAll('dryRun');
  if (!values.length) return false;
  if (values.some((v) => v !== 'All' && v !== '')) {
    const invalid = errors.invalid(optionsKind, 'meta.k8s.io', '', [fieldErrors.notSupported('dryRun', values, ['All'])]);
    throw new ApiError(400, 'BadRequest', invalid.message, invalid.details);
  }
  return true;
}

export function parseListOptions(query: URLSearchParams, selectableFields: string[]): ListOptions {
  const labelSelector = query.get('labelSelector') ?? '';
  const fieldSelector = query.get('fieldSelector') ?? '';
  const rvMatch = query.get('resourceVersionMatch') ?? '';
  if (rvMatch && rvMatch !== 'Exact' && rvMatch !== 'NotOlderThan') {
    throw errors.badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(rvMatch)}: supported values: "Exact", "NotOlderThan"`);
  }
  const ls = labelSelector ? parseLabelSelector(labelSelector) : undefined;
  const opts: ListOptions = {
    labelSelector: ls,
    fieldSelector: fieldSelector ? parseFieldSelector(fieldSelector, selectableFields) : undefined,
    hasSelector: !!(ls && !labelSelectorIsEmpty(ls)) || !!fieldSelector,
    limit: parseInteger(query.get('limit') ?? undefined, 'limit'),
    continue: query.get('continue') || undefined,
    resourceVersion: query.get('resourceVersion') || undefined,
    resourceVersionMatch: (rvMatch || undefined) as ListOptions['resourceVersionMatch'],
  };
  // Combinations of resourceVersion, resourceVersionMatch and continue are checked by
  // registry/read-plan.ts, where the spec's table lives.
  return opts;
}

const PROPAGATION = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body (kind optional) and the query; query values win as in Kubernetes. */
export function parseDeleteOptions(body: Record<string, unknown> | undefined, query: URLSearchParams): DeleteOptions {
  const b = body ?? {};
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') {
    throw errors.badRequest(`the body of a delete request must be DeleteOptions, not ${JSON.stringify(b.kind)}`);
  }
  const opts: DeleteOptions = {};
  // Body values are JSON and must have DeleteOptions' Go types (a string where an int64 belongs
  // is refused, as Go's decoder refuses it); query values are text.
  bodyField(b, 'gracePeriodSeconds', 'number', 'int64');
  bodyField(b, 'propagationPolicy', 'string', 'metav1.DeletionPropagation');
  bodyField(b, 'orphanDependents', 'boolean', 'bool');
  const grace = query.get('gracePeriodSeconds') ?? b.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    const n = typeof grace === 'number' ? grace : parseInteger(grace as string, 'gracePeriodSeconds');
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw errors.badRequest('gracePeriodSeconds must be a non-negative integer');
    opts.gracePeriodSeconds = n;
  }
  const policy = query.get('propagationPolicy') ?? b.propagationPolicy;
  if (policy !== undefined && policy !== null) {
    if (typeof policy !== 'string' || !PROPAGATION.includes(policy)) {
      throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [{
        type: 'FieldValueNotSupported', field: 'propagationPolicy',
        message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      }]);
    }
    opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  }
  const orphan = query.get('orphanDependents') ?? b.orphanDependents;
  if (orphan !== undefined && orphan !== null) {
    opts.orphanDependents = typeof orphan === 'boolean' ? orphan : parseBool(orphan as string, 'orphanDependents');
    if (opts.propagationPolicy) {
      throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [{
        type: 'FieldValueInvalid', field: 'propagationPolicy', message: 'Invalid value: "": orphanDependents and deletionPropagation cannot be both set',
      }]);
    }
  }
  const pre = b.preconditions as { uid?: unknown; resourceVersion?: unknown } | undefined;
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== 'object' || Array.isArray(pre)) throw errors.badRequest(`json: cannot unmarshal ${jsonKind(pre)} into Go struct field DeleteOptions.preconditions of type v1.Preconditions`);
    bodyField(pre as Record<string, unknown>, 'uid', 'string', 'types.UID', 'DeleteOptions.preconditions.uid');
    bodyField(pre as Record<string, unknown>, 'resourceVersion', 'string', 'string', 'DeleteOptions.preconditions.resourceVersion');
    opts.preconditions = {
      uid: typeof pre.uid === 'string' ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
    };
  }
  return opts;
}

/** The JSON kind of a value as Go's decoder names it in "cannot unmarshal <kind> into ...". */
function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Refuses (400, Go's decoder text) a body field present with a JSON type other than `want`; null is absent. */
function bodyField(b: Record<string, unknown>, field: string, want: 'number' | 'string' | 'boolean', goType: string, path = `DeleteOptions.${field}`): void {
  const v = b[field];
  if (v === undefined || v === null || typeof v === want) return;
  throw errors.badRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${goType}`);
}
