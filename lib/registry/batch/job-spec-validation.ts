/**
 * Kubernetes 1.32's validateJobSpec (pkg/apis/batch/validation) over a batch/v1 JobSpec's JSON at
 * any path: what a Job's `spec` and a CronJob's `spec.jobTemplate.spec` share (counts, indexed
 * completion, backoff limit per index, pod failure policy, success policy, pod replacement
 * policy, managedBy, the pod template with the Job's restart-policy rule). The selector rules
 * differ between the two and stay with each kind; ValidateJobTemplateSpec is here as CronJob's.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isDns1123Subdomain, isQualifiedName, validateNonNegative } from '../../meta/validation';
import { Json, isObject, record, records, text } from '../core/json-fields';
import { VolumeRules } from '../core/volumes/volume-list';
import { validatePodTemplateSpec } from '../core/pod-template';
import { goInt32s, goLabelSelector, invalidGo, invalidOmitted } from '../../meta/go-print';

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_ON_EXIT_CODES_VALUES = 255;
const MAX_ON_POD_CONDITIONS_PATTERNS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;

const POD_FAILURE_POLICY_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const ON_EXIT_CODES_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const POD_REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${HTTP_PATH_FMT}$`);

const set = (v: unknown): boolean => v !== undefined && v !== null;
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
/** Go's %q of a []string: ["a" "b"]. */
const goQuoted = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** ValidateNonnegativeField. */
export function nonNegative(spec: Json, key: string, path: string): FieldError[] {
  return validateNonNegative(spec[key], child(path, key));
}

/** The completion mode, NonIndexed when unset. */
export const isIndexed = (spec: Json): boolean => text(spec, 'completionMode') === 'Indexed';

/** IsDomainPrefixedPath (managedBy). */
function domainPrefixedPath(path: string, value: string): FieldError[] {
  if (!value) return [fieldErrors.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || !host || !rest) return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDns1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!httpPathRe.test(rest)) errs.push(fieldErrors.invalid(path, rest, `Invalid path (regex used for validation is '${HTTP_PATH_FMT}')`));
  return errs;
}

/**
 * validateIndexesFormat: an ordered, comma-separated list of indexes and `a-b` intervals below
 * `completions`; returns the number of indexes, or the error Kubernetes words.
 */
export function validateIndexesFormat(indexes: string, completions: number): { total: number; error?: string } {
  if (!indexes) return { total: 0 };
  let last: number | undefined;
  let total = 0;
  const parse = (s: string) => (/^[+-]?\d+$/.test(s) ? Number(s) : undefined);
  for (const interval of indexes.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) {
      return { total: 0, error: `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'` };
    }
    const bounds: number[] = [];
    for (const s of limits) {
      const x = parse(s);
      if (x === undefined) return { total: 0, error: `cannot convert string to integer for index: ${JSON.stringify(s)}` };
      if (x >= completions) return { total: 0, error: `too large index: ${JSON.stringify(s)}` };
      if (last !== undefined && last >= x) return { total: 0, error: `non-increasing order, previous: ${last}, current: ${x}` };
      last = x;
      bounds.push(x);
    }
    total += bounds.length === 2 ? bounds[1] - bounds[0] + 1 : 1;
  }
  return { total };
}

function validateOnExitCodes(req: Json, path: string, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operator = text(req, 'operator');
  const opPath = child(path, 'operator');
  if (!operator) errs.push(fieldErrors.required(opPath, `valid values: ${goQuoted(ON_EXIT_CODES_OPERATORS)}`));
  else if (!ON_EXIT_CODES_OPERATORS.includes(operator)) errs.push(fieldErrors.notSupported(opPath, operator, ON_EXIT_CODES_OPERATORS));
  if (typeof req.containerName === 'string' && !containerNames.has(req.containerName)) {
    errs.push(fieldErrors.invalid(child(path, 'containerName'), req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const valuesPath = child(path, 'values');
  const values = Array.isArray(req.values) ? (req.values as number[]) : [];
  if (!values.length) errs.push(invalidGo(valuesPath, goInt32s(req.values), 'at least one value is required'));
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errs.push(fieldErrors.tooMany(valuesPath, values.length, MAX_ON_EXIT_CODES_VALUES));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errs.push(fieldErrors.invalid(index(valuesPath, j), v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldErrors.duplicate(index(valuesPath, j), v));
    else seen.add(v);
    if (j > 0 && values[j - 1] > v) ordered = false;
  });
  if (!ordered) errs.push(invalidGo(valuesPath, goInt32s(values), 'must be ordered'));
  return errs;
}

function validateOnPodConditions(patterns: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_ON_POD_CONDITIONS_PATTERNS) errs.push(fieldErrors.tooMany(path, patterns.length, MAX_ON_POD_CONDITIONS_PATTERNS));
  patterns.forEach((p, j) => {
    const at = index(path, j);
    const type = text(p, 'type');
    errs.push(...isQualifiedName(type).map((m) => fieldErrors.invalid(child(at, 'type'), type, m)));
    const status = text(p, 'status');
    if (!status) errs.push(fieldErrors.required(child(at, 'status'), `valid values: ${goQuoted(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errs.push(fieldErrors.notSupported(child(at, 'status'), status, CONDITION_STATUSES));
  });
  return errs;
}

function validatePodFailurePolicy(spec: Json, policy: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rulesPath = child(path, 'rules');
  const rules = records(policy, 'rules');
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errs.push(fieldErrors.tooMany(rulesPath, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  const podSpec = record(record(spec, 'template') ?? {}, 'spec') ?? {};
  const names = new Set([...records(podSpec, 'containers'), ...records(podSpec, 'initContainers')].map((c) => text(c, 'name')));
  rules.forEach((rule, i) => {
    const at = index(rulesPath, i);
    const action = text(rule, 'action');
    const actionPath = child(at, 'action');
    if (!action) errs.push(fieldErrors.required(actionPath, `valid values: ${goQuoted(POD_FAILURE_POLICY_ACTIONS)}`));
    else if (action === 'FailIndex') {
      if (!set(spec.backoffLimitPerIndex)) errs.push(fieldErrors.invalid(actionPath, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!POD_FAILURE_POLICY_ACTIONS.includes(action)) errs.push(fieldErrors.notSupported(actionPath, action, POD_FAILURE_POLICY_ACTIONS));
    const onExitCodes = record(rule, 'onExitCodes');
    const onPodConditions = records(rule, 'onPodConditions');
    if (onExitCodes) errs.push(...validateOnExitCodes(onExitCodes, child(at, 'onExitCodes'), names));
    if (onPodConditions.length) errs.push(...validateOnPodConditions(onPodConditions, child(at, 'onPodConditions')));
    if (onExitCodes && onPodConditions.length) errs.push(invalidOmitted(at, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!onExitCodes && !onPodConditions.length) errs.push(invalidOmitted(at, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  return errs;
}

function validateSuccessPolicy(spec: Json, policy: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rulesPath = child(path, 'rules');
  const rules = records(policy, 'rules');
  if (!rules.length) errs.push(fieldErrors.required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(fieldErrors.tooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  // Kubernetes reads completions unguarded here; an Indexed Job without completions is refused
  // already (completions: Required value), so the rules are checked only when it is set.
  const completions = num(spec.completions);
  rules.forEach((rule, i) => {
    const at = index(rulesPath, i);
    if (!set(rule.succeededCount) && !set(rule.succeededIndexes)) {
      errs.push(fieldErrors.required(at, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (typeof rule.succeededIndexes === 'string' && completions !== undefined) {
      const p = child(at, 'succeededIndexes');
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(fieldErrors.tooLong(p, MAX_SUCCEEDED_INDEXES_LENGTH));
      const parsed = validateIndexesFormat(rule.succeededIndexes, completions);
      total = parsed.total;
      if (parsed.error) errs.push(fieldErrors.invalid(p, rule.succeededIndexes, `error parsing succeededIndexes: ${parsed.error}`));
    }
    const count = num(rule.succeededCount);
    if (count !== undefined && completions !== undefined) {
      const p = child(at, 'succeededCount');
      if (count < 0) errs.push(fieldErrors.invalid(p, count, 'must be greater than or equal to 0'));
      if (count > completions) errs.push(fieldErrors.invalid(p, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (set(rule.succeededIndexes) && count > total) {
        errs.push(fieldErrors.invalid(p, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

function validateIndexedRules(spec: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const completions = num(spec.completions);
  const parallelism = num(spec.parallelism);
  const maxFailed = num(spec.maxFailedIndexes);
  if (!set(spec.completions)) errs.push(fieldErrors.required(child(path, 'completions'), 'when completion mode is Indexed'));
  if (parallelism !== undefined && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
    errs.push(fieldErrors.invalid(child(path, 'parallelism'), parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
  }
  if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
    errs.push(fieldErrors.invalid(child(path, 'maxFailedIndexes'), maxFailed, 'must be less than or equal to completions'));
  }
  if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB) {
    errs.push(fieldErrors.invalid(child(path, 'maxFailedIndexes'), maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED_JOB}`));
  }
  if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && set(spec.backoffLimitPerIndex)) {
    const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (maxFailed === undefined) errs.push(fieldErrors.required(child(path, 'maxFailedIndexes'), `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
    if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
      errs.push(fieldErrors.invalid(child(path, 'parallelism'), parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
    }
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
      errs.push(fieldErrors.invalid(child(path, 'maxFailedIndexes'), maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
    }
  }
  return errs;
}

/** validateJobSpec: everything of a JobSpec at `path` but the selector. */
export function validateJobSpecFields(spec: Json, path: string, volumes: VolumeRules): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex']) {
    errs.push(...nonNegative(spec, key, path));
  }
  if (set(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec, 'maxFailedIndexes', path));
    if (!set(spec.backoffLimitPerIndex)) errs.push(fieldErrors.required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (typeof spec.managedBy === 'string') {
    const p = child(path, 'managedBy');
    errs.push(...domainPrefixedPath(p, spec.managedBy));
    if (spec.managedBy.length > MAX_MANAGED_BY_LENGTH) errs.push(fieldErrors.tooLong(p, MAX_MANAGED_BY_LENGTH));
  }
  const mode = spec.completionMode;
  if (set(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') errs.push(...validateIndexedRules(spec, path));
  }
  if (!set(mode) || mode === 'NonIndexed') {
    for (const key of ['backoffLimitPerIndex', 'maxFailedIndexes']) {
      if (set(spec[key])) errs.push(fieldErrors.invalid(child(path, key), spec[key], 'requires indexed completion mode'));
    }
  }
  const pfp = record(spec, 'podFailurePolicy');
  if (pfp) errs.push(...validatePodFailurePolicy(spec, pfp, child(path, 'podFailurePolicy')));
  const sp = record(spec, 'successPolicy');
  if (sp) {
    if (!isIndexed(spec)) errs.push(invalidGo(child(path, 'successPolicy'), goSuccessPolicy(sp), 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, sp, child(path, 'successPolicy')));
  }
  const replacement = spec.podReplacementPolicy;
  if (set(replacement)) {
    const allowed = pfp ? ['Failed'] : POD_REPLACEMENT_POLICIES;
    if (!allowed.includes(String(replacement))) errs.push(fieldErrors.notSupported(child(path, 'podReplacementPolicy'), replacement, allowed));
  }
  const templatePath = child(path, 'template');
  errs.push(...validatePodTemplateSpec(spec.template, templatePath, volumes));
  const restart = text(record(record(spec, 'template') ?? {}, 'spec') ?? {}, 'restartPolicy');
  const restartPath = child(child(templatePath, 'spec'), 'restartPolicy');
  if (restart === 'Always' || restart === '') errs.push(fieldErrors.required(restartPath, 'valid values: "OnFailure", "Never"'));
  else if (restart !== 'OnFailure' && restart !== 'Never') errs.push(fieldErrors.notSupported(restartPath, restart, ['OnFailure', 'Never']));
  else if (pfp && restart !== 'Never') errs.push(fieldErrors.invalid(restartPath, restart, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{...}} as Go prints it (pointers as addresses). */
function goSuccessPolicy(sp: Json): string {
  const rules = records(sp, 'rules').map((r) => `batch.SuccessPolicyRule{SucceededIndexes:(*string)(${set(r.succeededIndexes) ? '0xc000000000' : 'nil'}), `
    + `SucceededCount:(*int32)(${set(r.succeededCount) ? '0xc000000000' : 'nil'})}`);
  return `batch.SuccessPolicy{Rules:${Array.isArray(sp.rules) ? `[]batch.SuccessPolicyRule{${rules.join(', ')}}` : '[]batch.SuccessPolicyRule(nil)'}}`;
}

/** ValidateJobTemplateSpec: a CronJob's jobTemplate (its selector is generated per Job, never given). */
export function validateJobTemplateSpec(jobTemplate: unknown, path: string, volumes: VolumeRules): FieldError[] {
  const t: Json = isObject(jobTemplate) ? jobTemplate : {};
  const spec = record(t, 'spec') ?? {};
  const specPath = child(path, 'spec');
  const errs = validateJobSpecFields(spec, specPath, volumes);
  if (set(spec.selector)) errs.push(invalidGo(child(specPath, 'selector'), goLabelSelector(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(fieldErrors.notSupported(child(specPath, 'manualSelector'), true, ['nil', 'false']));
  return errs;
}
