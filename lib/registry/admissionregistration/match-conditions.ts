/**
 * Webhook matchConditions in CEL (admissionregistration v1): the environment Kubernetes 1.32
 * compiles them in (variables object, oldObject, namespaceObject, request and the authorizer with
 * authorizer.requestResource; no params), compiling one expression to a bool program, and the
 * validation of a webhook's list (at most 64, qualified unique names, a required expression that
 * compiles to bool) with Kubernetes' field paths and messages
 * (pkg/apis/admissionregistration/validation validateMatchConditions). Shared by the
 * configurations' validation here and by the admission webhooks that evaluate the conditions.
 */
import { AUTHORIZER_VARIABLE, CelEnvironment, CelProgram, celEnvironment, compile } from '../../cel';
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isQualifiedName } from '../../meta/validation';

/** Kubernetes' limit on the conditions of one webhook. */
export const MAX_MATCH_CONDITIONS = 64;

let env: CelEnvironment | undefined;

/** The match-condition environment, built once. */
export function matchConditionEnvironment(): CelEnvironment {
  env ??= celEnvironment({
    purpose: 'match-condition',
    variables: [
      { name: 'object', type: 'dyn' }, { name: 'oldObject', type: 'dyn' },
      { name: 'namespaceObject', type: 'dyn' }, { name: 'request', type: 'dyn' },
      AUTHORIZER_VARIABLE,
    ],
  });
  return env;
}

export type ConditionCompileResult = { ok: true; program: CelProgram } | { ok: false; error: string };

/** Compiles one condition; it must be a bool (Kubernetes refuses dyn results: `must evaluate to bool`). */
export function compileMatchCondition(expression: string): ConditionCompileResult {
  const c = compile(matchConditionEnvironment(), expression, { resultTypes: ['bool'] });
  if (!c.ok) return c;
  if (c.program.outputType !== 'bool') return { ok: false, error: 'must evaluate to bool' };
  return c;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The errors of one webhook's matchConditions at `path` (`webhooks[i].matchConditions`). */
export function validateMatchConditions(value: unknown, path: string): FieldError[] {
  if (!Array.isArray(value)) return [];
  const errs: FieldError[] = [];
  if (value.length > MAX_MATCH_CONDITIONS) errs.push(fieldErrors.tooMany(path, value.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  value.forEach((raw, i) => {
    const c = isObj(raw) ? raw : {};
    const at = index(path, i);
    const expression = typeof c.expression === 'string' ? c.expression : '';
    if (!expression.trim()) errs.push(fieldErrors.required(child(at, 'expression'), ''));
    else {
      const r = compileMatchCondition(expression.trim());
      if (!r.ok) errs.push(fieldErrors.invalid(child(at, 'expression'), expression.trim(), r.error));
    }
    const name = typeof c.name === 'string' ? c.name : '';
    if (!name) errs.push(fieldErrors.required(child(at, 'name'), ''));
    else for (const m of isQualifiedName(name)) errs.push(fieldErrors.invalid(child(at, 'name'), name, m));
    if (name) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}
