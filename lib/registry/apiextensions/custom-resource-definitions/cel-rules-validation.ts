/**
 * The write-time checks of a CRD schema's `x-kubernetes-validations` (Kubernetes'
 * apiextensions validation.go, ValidateCustomResourceDefinitionOpenAPISchema): each rule's
 * fields (rule, message, messageExpression, reason, fieldPath), then, when the schema is otherwise
 * valid, compilation with `self`/`oldSelf` typed from the node, transition rules only where old
 * and new values correlate, `optionalOldSelf` only on transition rules, and the static cost of
 * each rule (times the node's cardinality) and of the whole schema, with Kubernetes' paths and
 * messages. The schema engine (lib/scheme/structural) runs first; this file is the CEL part.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../../../cel';
import { Structural, additionalSchema, isObject, toStructural } from '../../../scheme/structural/structural';
import { fieldPathInSchema } from '../../../scheme/structural/field-path';
import { CompiledRule, XValidation, compileNodeRules } from './cel-rules-compile';

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string) => /[\n\r]/.test(s);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const key = (path: string, k: string) => `${path}[${k}]`;

/** Options of validateCrdRules. */
export interface CrdRulesOptions {
  /** The version's schema is unchanged by this update: per-expression cost limits do not apply (Kubernetes' ratcheting). */
  suppressPerExpressionCost?: boolean;
}

/** `%#v` of the internal ValidationRule, as Kubernetes prints the bad value of a rule error. */
export function goValidationRule(r: XValidation): string {
  const q = (v: unknown) => JSON.stringify(str(v));
  const ptr = (type: string, v: unknown) => (v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(0xc000000000)`);
  return `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, `
    + `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason)}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf)}}`;
}

const invalidRule = (field: string, r: XValidation, detail: string): FieldError =>
  ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${goValidationRule(r)}: ${detail}` });

/** The per-rule field checks of one node (Kubernetes' SchemaErrors). */
function ruleFieldErrors(rules: XValidation[], s: Structural | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const rule = str(r.rule).trim();
    const message = str(r.message);
    if (!rule) errs.push(fieldErrors.required(`${at}.rule`, 'rule is not specified'));
    else if (message.length > 0 && !message.trim()) errs.push(fieldErrors.invalid(`${at}.message`, message, 'message must be non-empty if specified'));
    else if (hasNewlines(message.trim())) errs.push(fieldErrors.invalid(`${at}.message`, message, 'message must not contain line breaks'));
    else if (hasNewlines(rule) && !message.trim()) errs.push(fieldErrors.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    const msgExpr = str(r.messageExpression);
    if (msgExpr.length > 0 && !msgExpr.trim()) errs.push(fieldErrors.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (r.reason !== undefined && r.reason !== null && !REASONS.includes(str(r.reason))) {
      errs.push(fieldErrors.notSupported(`${at}.reason`, str(r.reason), REASONS));
    }
    const fp = str(r.fieldPath);
    if (fp.length > 0 && !fp.trim()) errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fp)) errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must not contain line breaks'));
    if (fp.length > 0 && s && fieldPathInSchema(fp, s).error) errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must be a valid path'));
  });
  return errs;
}

/** Kubernetes' getCostErrorMessage. */
export function costErrorMessage(name: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const f = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

const mul = (a: number, b: number) => (a === 0 ? 0 : Math.min(a * b, Number.MAX_SAFE_INTEGER));

interface Walk {
  schemaErrs: FieldError[];
  celErrs: FieldError[];
  costs: { path: string; cost: number }[];
  compile: boolean;
  opts: CrdRulesOptions;
}

/** Walks the JSON schema and its structural model side by side. */
function walk(json: unknown, s: Structural | undefined, path: string, w: Walk, cardinality: number | undefined,
  uncorrelatable: string | undefined, isRoot: boolean): void {
  if (!isObject(json)) return;
  const rules = Array.isArray(json['x-kubernetes-validations']) ? (json['x-kubernetes-validations'] as unknown[]).map((r) => (isObject(r) ? r : {}) as XValidation) : [];
  if (rules.length) {
    const own = ruleFieldErrors(rules, s, path);
    w.schemaErrs.push(...own);
    if (w.compile && s && !own.length) w.celErrs.push(...compiledErrors(compileNodeRules(s, isRoot), path, w, cardinality, uncorrelatable));
  }
  const props = isObject(json.properties) ? json.properties : {};
  for (const [k, p] of Object.entries(props)) {
    const unc = uncorrelatable ?? (json['x-kubernetes-map-type'] === 'atomic' ? path : undefined);
    walk(p, s?.properties?.[k], key(`${path}.properties`, k), w, cardinality, unc, false);
  }
  if (isObject(json.additionalProperties)) {
    const max = typeof json.maxProperties === 'number' ? json.maxProperties : undefined;
    walk(json.additionalProperties, additionalSchema(s), `${path}.additionalProperties`, w,
      cardinality !== undefined && max !== undefined ? mul(cardinality, max) : undefined, uncorrelatable, false);
  }
  if (isObject(json.items)) {
    const max = typeof json.maxItems === 'number' ? json.maxItems : undefined;
    const unc = uncorrelatable ?? (json['x-kubernetes-list-type'] !== 'map' ? path : undefined);
    walk(json.items, s?.items, `${path}.items`, w, cardinality !== undefined && max !== undefined ? mul(cardinality, max) : undefined, unc, false);
  }
}

function compiledErrors(compiled: CompiledRule[], path: string, w: Walk, cardinality: number | undefined, uncorrelatable: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  compiled.forEach((cr, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const cost = mul(cr.maxCost, cardinality ?? cr.unboundedCardinality);
    if (!w.opts.suppressPerExpressionCost && cost > STATIC_ESTIMATED_COST_LIMIT) {
      errs.push(fieldErrors.forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    }
    w.costs.push({ path: `${at}.rule`, cost });
    if (cr.error) {
      errs.push(cr.error.type === 'required' ? fieldErrors.required(`${at}.rule`, cr.error.detail) : invalidRule(`${at}.rule`, cr.raw, cr.error.detail));
    }
    if (cr.messageError) {
      errs.push(invalidRule(`${at}.messageExpression`, cr.raw, cr.messageError));
    } else if (cr.messageProgram) {
      if (!w.opts.suppressPerExpressionCost && cr.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
        errs.push(fieldErrors.forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', cr.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      w.costs.push({ path: `${at}.messageExpression`, cost: cr.messageMaxCost });
    }
    if (cr.usesOldSelf) {
      if (uncorrelatable !== undefined) {
        errs.push(fieldErrors.invalid(`${at}.rule`, cr.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
      }
    } else if (typeof cr.raw.optionalOldSelf === 'boolean') {
      errs.push(fieldErrors.invalid(`${at}.optionalOldSelf`, cr.raw.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

/**
 * The CEL errors of a version schema `schema` at `path` (`spec.versions[0].schema.openAPIV3Schema`).
 * `schemaValid` says the schema engine found nothing wrong: only then are rules compiled.
 */
export function validateCrdRules(schema: unknown, path: string, schemaValid: boolean, opts: CrdRulesOptions = {}): FieldError[] {
  if (!isObject(schema) || !JSON.stringify(schema).includes('"x-kubernetes-validations"')) return [];
  let s: Structural | undefined;
  try {
    s = toStructural(schema);
  } catch {
    s = undefined;
  }
  const w: Walk = { schemaErrs: [], celErrs: [], costs: [], compile: schemaValid && !!s, opts };
  walk(schema, s, path, w, 1, undefined, true);
  const errs = [...w.schemaErrs, ...(w.schemaErrs.length ? [] : w.celErrs)];
  const total = w.costs.reduce((a, c) => Math.min(a + c.cost, Number.MAX_SAFE_INTEGER), 0);
  if (!w.schemaErrs.length && total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    const top = w.costs.filter((c) => c.cost > 0).sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const t of top) errs.push(fieldErrors.forbidden(t.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errs.push(fieldErrors.forbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return errs;
}
