/**
 * One evaluation of a policy for one request, binding and parameter object (Kubernetes' validator):
 * matchConditions first (any false: the policy does not apply), then the validations and the audit
 * annotations; spec.variables are evaluated lazily, each once, when an expression first reads
 * `variables.<name>` (`variables["name"]` is not followed). Every expression draws on one runtime
 * cost budget. An error, a compile error or the budget running out
 * is decided by failurePolicy (Fail: a denial with Kubernetes' "expression '...' resulted in
 * error: ..." text; Ignore: admitted). Nothing here throws.
 */
import { CelCostBudget, CelEvalResult, RUNTIME_CEL_COST_BUDGET, fromCel } from '../../cel';
import { Compiled, CompiledPolicy } from './compiled-policy';

/** A failed validation (or an error under failurePolicy Fail). */
export interface PolicyDecision {
  message: string;
  /** Invalid when the validation names none. */
  reason: string;
  /** Index of the validation in spec.validations; -1 for errors outside them. */
  expressionIndex: number;
  error: boolean;
  compileError: boolean;
}

export interface PolicyEvaluation {
  /** False: a matchCondition said no (or its error was ignored); nothing else was evaluated. */
  applies: boolean;
  denials: PolicyDecision[];
  /** `<key>` to value of the audit annotations that produced a non-empty string. */
  auditAnnotations: Array<[string, string]>;
}

/** Evaluates one compiled expression; async only when an activation value needs it (the authorizer). */
export type Evaluator = (program: NonNullable<Compiled['program']>, activation: Record<string, unknown>, budget: CelCostBudget) => Promise<CelEvalResult> | CelEvalResult;

const COST_EXHAUSTED = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** A result as an error text, or the value. */
async function run(c: Compiled, activation: Record<string, unknown>, budget: CelCostBudget, evaluate: Evaluator):
  Promise<{ value?: unknown; error?: string; compileError?: boolean; exhausted?: boolean }> {
  if (!c.program) return { error: `compilation error: ${c.error ?? 'unknown'}`, compileError: true };
  if (budget.remaining <= 0) return { error: COST_EXHAUSTED, exhausted: true };
  let r: CelEvalResult;
  try {
    r = await evaluate(c.program, activation, budget);
  } catch (e) {
    r = { ok: false, error: (e as Error).message, reason: 'runtime' };
  }
  if (!r.ok) {
    if (r.reason === 'cost' && budget.remaining <= 0) return { error: COST_EXHAUSTED, exhausted: true };
    return { error: `expression '${c.expression}' resulted in error: ${r.error}` };
  }
  return { value: r.value };
}

const NEWLINE = /[\n\r]/;

export async function evaluatePolicy(policy: CompiledPolicy, base: Record<string, unknown>, evaluate: Evaluator): Promise<PolicyEvaluation> {
  const budget = new CelCostBudget(RUNTIME_CEL_COST_BUDGET);
  const fail = policy.failurePolicy === 'Fail';
  const out: PolicyEvaluation = { applies: true, denials: [], auditAnnotations: [] };
  const errorDecision = (message: string, index: number, compileError = false): void => {
    if (fail) out.denials.push({ message, reason: 'Invalid', expressionIndex: index, error: true, compileError });
  };
  for (const mc of policy.matchConditions) {
    const r = await run(mc, base, budget, evaluate);
    if (r.error !== undefined) {
      errorDecision(r.error, -1, r.compileError);
      out.applies = fail;
      return out;
    }
    if (r.value !== true) {
      out.applies = false;
      return out;
    }
  }
  // spec.variables, evaluated lazily: each the first time an expression reads `variables.<name>`, once.
  const variables: Record<string, unknown> = {};
  const activation = policy.variables.length ? { ...base, variables } : base;
  const byName = new Map(policy.variables.map((v) => [v.name, v]));
  const state = new Map<string, { done: boolean; error?: string }>();
  /** Evaluates the variables `expr` reads; the error of the first that fails, as Kubernetes words it. */
  const variableError = async (expr: string): Promise<string | undefined> => {
    if (!byName.size) return undefined;
    for (const m of expr.matchAll(/\bvariables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)/g)) {
      const name = m[1];
      const v = byName.get(name);
      if (!v) continue;
      let st = state.get(name);
      if (!st) {
        state.set(name, (st = { done: false }));
        const inner = await variableError(v.expression);
        if (inner !== undefined) st.error = inner;
        else {
          const r = await run(v, activation, budget, evaluate);
          if (r.error !== undefined) st.error = r.error;
          else variables[name] = fromCel(r.value);
        }
        st.done = true;
      }
      if (st.error !== undefined) return `composited variable "${name}" fails to evaluate: ${st.error}`;
    }
    return undefined;
  };
  for (let i = 0; i < policy.validations.length; i++) {
    const v = policy.validations[i];
    const varErr = await variableError(v.expression);
    if (varErr !== undefined) {
      errorDecision(`expression '${v.expression}' resulted in error: ${varErr}`, i);
      continue;
    }
    const r = await run(v, activation, budget, evaluate);
    if (r.error !== undefined) {
      errorDecision(r.error, i, r.compileError);
      if (r.exhausted) break;
      continue;
    }
    if (r.value === true) continue;
    if (r.value !== false) {
      errorDecision(`expression '${v.expression}' resulted in error: no such overload`, i);
      continue;
    }
    let message = v.message || `failed expression: ${v.expression.trim()}`;
    if (v.messageExpression?.program && await variableError(v.messageExpression.expression) === undefined) {
      const m = await run(v.messageExpression, activation, budget, evaluate);
      // Kubernetes keeps the static message when messageExpression fails or gives nothing usable.
      if (m.error === undefined && typeof m.value === 'string' && m.value.trim() && !NEWLINE.test(m.value)) message = m.value.trim();
    }
    out.denials.push({ message, reason: v.reason || 'Invalid', expressionIndex: i, error: false, compileError: false });
  }
  for (const a of policy.auditAnnotations) {
    const varErr = await variableError(a.expression);
    if (varErr !== undefined) {
      errorDecision(`expression '${a.expression}' resulted in error: ${varErr}`, -1);
      continue;
    }
    const r = await run(a, activation, budget, evaluate);
    if (r.error !== undefined) {
      errorDecision(r.error, -1, r.compileError);
      continue;
    }
    if (typeof r.value === 'string' && r.value !== '') out.auditAnnotations.push([a.key, r.value.length > 10 * 1024 ? r.value.slice(0, 10 * 1024) : r.value]);
    else if (r.value !== null && r.value !== undefined && typeof r.value !== 'string') {
      errorDecision(`valueExpression '${a.expression}' resulted in unsupported return type: ${typeof r.value}. Required type: string or null`, -1);
    }
  }
  return out;
}
