/**
 * Evaluating a custom resource against its schema's `x-kubernetes-validations` (Kubernetes'
 * apiextensions schema/cel/validation.go): every node's rules with `self` bound to the value
 * there and, on update, `oldSelf` to the correlated old value (object properties by name, map
 * values by key, `x-kubernetes-list-type: map` items by their keys); transition rules run only
 * where an old value exists, or always with `optionalOldSelf`. One runtime cost budget is shared
 * by all rules of a call. Failures are Kubernetes' field errors (`spec: Invalid value: "object":
 * <message>`, the reason and fieldPath of the rule, messageExpression with its fallbacks).
 * Ratcheting: a failing rule that does not use oldSelf on a value unchanged since the old object
 * is a warning, not an error.
 */
import { CelCostBudget, CelSchema, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, celValueForSchema } from '../../cel';
import { CelOptional, type CelProgram } from '../../cel';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { Structural, additionalSchema, isObject } from '../../scheme/structural/structural';
import { CompiledRule, compileNodeRules, selfSchema } from '../../registry/apiextensions/custom-resource-definitions/cel-rules-compile';
import { Correlation, correlateIndex, correlateKey, deepEqual, rootCorrelation, shouldRatchet } from './correlation';

/** What a validation call returns: errors, and warnings for ratcheted failures. */
export interface RulesResult { errors: FieldError[]; warnings: string[] }

const MAX_MESSAGE_BYTES = 5 * 1024;
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** Whether any node of `s` has rules (remembered per schema). */
const hasRulesMemo = new WeakMap<Structural, boolean>();
export function hasRules(s: Structural | undefined): boolean {
  if (!s) return false;
  const m = hasRulesMemo.get(s);
  if (m !== undefined) return m;
  const r = !!s.xValidations?.length || Object.values(s.properties ?? {}).some(hasRules) || hasRules(additionalSchema(s)) || hasRules(s.items);
  hasRulesMemo.set(s, r);
  return r;
}

interface Call { budget: CelCostBudget; warnings: string[]; stop: boolean }

const child = (path: string | undefined, name: string) => (path ? `${path}.${name}` : name);
const shown = (path: string | undefined) => path ?? '<nil>';
// The engine's error text as cel-go words it: first line only, lower-case first letter ("no such key: x").
const firstLine = (s: string) => {
  const line = s.split('\n')[0].trim();
  return line.charAt(0).toLowerCase() + line.slice(1);
};

/** Validates `obj` (and `old` on update) against the rules of root schema `s`. */
export function validateRules(s: Structural, obj: unknown, old: unknown, budget = RUNTIME_CEL_COST_BUDGET): RulesResult {
  if (!hasRules(s)) return { errors: [], warnings: [] };
  const call: Call = { budget: new CelCostBudget(budget), warnings: [], stop: false };
  const corr = old === undefined ? undefined : rootCorrelation(obj, old, s);
  const errors = node(s, undefined, obj, old, corr, call, true);
  return { errors, warnings: call.warnings };
}

function node(s: Structural, path: string | undefined, obj: unknown, old: unknown, corr: Correlation | undefined, call: Call, isRoot: boolean): FieldError[] {
  if (obj === null || obj === undefined || call.stop) return [];
  const errs = s.xValidations?.length ? expressions(s, path, obj, old ?? undefined, corr, call, isRoot) : [];
  if (call.stop) return errs;
  if (Array.isArray(obj) && s.items && hasRules(s.items)) {
    const oldList = Array.isArray(old) ? old : [];
    obj.forEach((item, i) => {
      if (call.stop) return;
      const oldItem = s.xListType === 'map' ? findByKeys(oldList, item, s.xListMapKeys ?? []) : undefined;
      errs.push(...node(s.items!, `${shown(path)}[${i}]`, item, oldItem, correlateIndex(corr, i), call, false));
    });
  } else if (isObject(obj)) {
    const oldMap = isObject(old) ? old : undefined;
    if (s.properties) {
      for (const [k, p] of Object.entries(s.properties)) {
        if (call.stop) break;
        if (!Object.hasOwn(obj, k) || !hasRules(p)) continue;
        errs.push(...node(p, child(path, k), obj[k], oldMap?.[k], correlateKey(corr, k, isRoot), call, false));
      }
    } else {
      const ap = additionalSchema(s);
      if (ap && hasRules(ap)) {
        for (const [k, v] of Object.entries(obj)) {
          if (call.stop) break;
          errs.push(...node(ap, `${shown(path)}[${k}]`, v, oldMap?.[k], correlateKey(corr, k, false), call, false));
        }
      }
    }
  }
  return errs;
}

/** The old item of a list-type map list with the same key values as `item`. */
export function findByKeys(oldList: unknown[], item: unknown, keys: string[]): unknown {
  if (!isObject(item) || !keys.length) return undefined;
  return oldList.find((o) => isObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
}

function expressions(s: Structural, path: string | undefined, obj: unknown, old: unknown, corr: Correlation | undefined, call: Call, isRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? '';
  const at = shown(path);
  if (call.budget.remaining <= 0) {
    call.stop = true;
    return [fieldErrors.invalid(at, type, OUT_OF_BUDGET)];
  }
  const schema: CelSchema = selfSchema(s, isRoot);
  let self: unknown;
  let oldSelf: unknown;
  try {
    self = celValueForSchema(obj, schema);
    oldSelf = old === undefined ? undefined : celValueForSchema(old, schema);
  } catch (e) {
    // A value the typing cannot convert is the object's fault: a 422 at the node, never a 500.
    return [fieldErrors.invalid(at, type, `${firstLine((e as Error).message)} evaluating rules`)];
  }
  for (const cr of compileNodeRules(s, isRoot)) {
    if (cr.error) {
      errs.push(fieldErrors.invalid(at, type, `rule compile error: ${cr.error.detail}`));
      continue;
    }
    if (!cr.program) continue;
    if (cr.usesOldSelf && old === undefined && !cr.optionalOldSelf) continue;
    // A call may cost up to the per-call limit or what is left of the budget: which one ran out decides the message.
    const budgetBound = call.budget.remaining < PER_CALL_LIMIT;
    const res = run(cr, self, oldSelf, old !== undefined, call.budget, false);
    if (!res.ok) {
      if (res.reason === 'cost') {
        call.stop = true;
        errs.push(fieldErrors.invalid(at, type, budgetBound || call.budget.remaining < 0 ? OUT_OF_BUDGET
          : `'${firstLine(res.error)}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(cr)}`));
        return errs;
      }
      const e = firstLine(res.error);
      errs.push(fieldErrors.invalid(at, type, /^no such overload/i.test(e)
        ? `'${e}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(cr)}`
        : `${e} evaluating rule: ${ruleErrorString(cr)}`));
      continue;
    }
    if (res.value === true) continue;
    const errPath = cr.normalizedFieldPath ? child(path, cr.normalizedFieldPath) : at;
    const add = (e: FieldError) => {
      if (!cr.usesOldSelf && shouldRatchet(corr)) call.warnings.push(`${e.field}: ${e.message}`);
      else errs.push(e);
    };
    let detail = ruleMessageOrDefault(cr);
    if (cr.messageProgram) {
      const msgBudgetBound = call.budget.remaining < PER_CALL_LIMIT;
      const m = run(cr, self, oldSelf, old !== undefined, call.budget, true);
      if (!m.ok && m.reason === 'cost') {
        call.stop = true;
        add(fieldErrors.invalid(errPath, type, msgBudgetBound || call.budget.remaining < 0
          ? 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'
          : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(String(cr.raw.messageExpression))}`));
        return errs;
      }
      if (m.ok && typeof m.value === 'string') {
        const msg = m.value.trim();
        if (msg && !/[\n\r]/.test(msg) && Buffer.byteLength(msg) <= MAX_MESSAGE_BYTES) detail = msg;
      }
    }
    add(errorForReason(errPath, type, detail, cr.raw.reason));
  }
  return errs;
}

type RunResult = { ok: true; value: unknown } | { ok: false; error: string; reason: 'runtime' | 'cost' };

/** Evaluates a rule (or its messageExpression), charging the shared budget. Never throws. */
function run(cr: CompiledRule, self: unknown, oldSelf: unknown, hasOld: boolean, budget: CelCostBudget, message: boolean): RunResult {
  const program = message ? cr.messageProgram! : cr.program!;
  const before = budget.remaining;
  const activation: Record<string, unknown> = { self };
  // With optionalOldSelf, oldSelf is an optional: none on create and where no old value correlates.
  if (cr.optionalOldSelf && cr.usesOldSelf) activation.oldSelf = hasOld ? CelOptional.of(oldSelf) : CelOptional.none();
  else if (hasOld) activation.oldSelf = oldSelf;
  let res: ReturnType<CelProgram['evaluate']>;
  try {
    res = program.evaluate(activation, budget);
  } catch (e) {
    return { ok: false, error: (e as Error).message, reason: 'runtime' };
  }
  if (budget.remaining === before) budget.remaining -= res.ok ? res.cost : 0;
  if (!res.ok) return res;
  if (budget.remaining < 0) return { ok: false, error: OUT_OF_BUDGET, reason: 'cost' };
  return { ok: true, value: res.value };
}

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const ruleErrorString = (cr: CompiledRule) => trimmed(cr.raw.message) || cr.rule.trim();
const ruleMessageOrDefault = (cr: CompiledRule) => trimmed(cr.raw.message) || `failed rule: ${ruleErrorString(cr)}`;

/** Kubernetes' fieldErrorForReason: the rule's reason picks the cause type. */
function errorForReason(path: string, type: string, detail: string, reason: unknown): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return fieldErrors.forbidden(path, detail);
    case 'FieldValueRequired': return fieldErrors.required(path, detail);
    case 'FieldValueDuplicate': return fieldErrors.duplicate(path, type);
    default: return fieldErrors.invalid(path, type, detail);
  }
}
