/**
 * Compiling and evaluating one expression in an environment: parse, type-check against the declared
 * variables (errors in cel-go's format, lib/cel/compile-errors), check the result type the caller
 * needs (a validation rule must be bool, a message expression string), estimate the static cost
 * (lib/cel/cost-estimate), and evaluate with the runtime cost limit and a shared budget
 * (lib/cel/runtime-cost). Errors are returned, never thrown: a bad expression is the author's input
 * and answers 4xx where it is written.
 */

import type { CelEnvironment } from './environment';
import { toCel } from './values';
import { valueOf } from './schema-values';
import { installListSemantics } from './list-semantics';
import { undefinedPresenceField } from './presence-check';
import { regexLiteralIssues, celErrorText } from './libraries/validators';
import { PER_CALL_LIMIT } from './cost';
import { compileErrorMessage } from './compile-errors';
import { estimateCost } from './cost-estimate';
import { COST_LIMIT_EXCEEDED, CostLimitExceeded, hookRoot, withTracker, type CostTracker } from './runtime-cost';

/** A compiled expression, evaluated any number of times. */
export interface CelProgram {
  readonly expression: string;
  /** The checked result type as CEL names it ('bool', 'string', 'dyn', ...). */
  readonly outputType: string;
  /** The static cost estimate (Kubernetes' units). */
  readonly estimatedCost: { min: number; max: number };
  /** Evaluates with variables bound to JSON values (converted to CEL values here). */
  evaluate(activation: Record<string, unknown>, budget?: CelCostBudget): CelEvalResult;
  /** As evaluate, for environments whose functions call out (the authorizer library): awaits them. */
  evaluateAsync(activation: Record<string, unknown>, budget?: CelCostBudget): Promise<CelEvalResult>;
}

export type CelEvalResult =
  | { ok: true; value: unknown; cost: number }
  | { ok: false; error: string; /** 'cost' when the budget ran out */ reason: 'runtime' | 'cost' };

export type CelCompileResult = { ok: true; program: CelProgram } | { ok: false; error: string };

/** What is left of a cost budget; shared by all the expressions of one validation call. */
export class CelCostBudget {
  constructor(public remaining: number) {}
}

export interface CompileOptions {
  /** Result types accepted ('bool' for rules and conditions, 'string' for messages); any when absent. */
  resultTypes?: string[];
  /** The error when the result type is not accepted (default "must evaluate to bool", as authentication configuration words it; CRD rules pass Kubernetes' "cel expression must evaluate to a bool"). */
  resultTypeMessage?: string;
  /**
   * Refuse a constant regex given to matches that does not compile ("invalid matches argument", cel-go's
   * ValidateRegexLiterals) at compile time instead of at evaluation. Off by default for now: the
   * library tables (test/unit/cel/libraries) expect the runtime error for such rows.
   */
  validateRegexLiterals?: boolean;
  /** Runtime cost limit of one evaluation (default PER_CALL_LIMIT). */
  perCallLimit?: number;
}

/**
 * Values already converted by celValueForSchema pass through; plain JSON of a variable typed from a
 * schema converts by that schema, any other plain JSON by shape.
 */
function bind(env: CelEnvironment, activation: Record<string, unknown>): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const k in activation) {
    const v = activation[k];
    const m = env.variableModels.get(k);
    bound[k] = m && v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) ? valueOf(v, m) : toCel(v);
  }
  return bound;
}

/** A runtime error in cel-go's words ("no such key: x"), without the engine's source excerpt. */
function runtimeMessage(e: unknown): string {
  const err = e as { summary?: string; message?: string };
  const msg = err?.summary ?? err?.message ?? String(e);
  return msg.replace(/^No such key: /, 'no such key: ');
}

function resultTypeError(options: CompileOptions): string {
  if (options.resultTypeMessage) return options.resultTypeMessage;
  return `must evaluate to ${(options.resultTypes ?? []).join(' or ')}`;
}

export function compile(env: CelEnvironment, expression: string, options: CompileOptions = {}): CelCompileResult {
  let parsed: ReturnType<CelEnvironment['engine']['parse']>;
  try {
    parsed = env.engine.parse(expression);
  } catch (e) {
    return { ok: false, error: compileErrorMessage(expression, e) };
  }
  let checked: ReturnType<typeof parsed.check>;
  try {
    checked = parsed.check();
  } catch (e) {
    return { ok: false, error: compileErrorMessage(expression, e) };
  }
  if (!checked.valid) return { ok: false, error: compileErrorMessage(expression, checked.error) };
  const regexIssues = options.validateRegexLiterals ? regexLiteralIssues(parsed.ast) : [];
  if (regexIssues.length > 0) return { ok: false, error: `compilation failed: ${regexIssues.map((i) => celErrorText(expression, i)).join('\n')}` };
  const undefinedField = undefinedPresenceField(parsed.ast, env.typeModels);
  if (undefinedField) return { ok: false, error: compileErrorMessage(expression, { name: 'TypeError', summary: `No such key: ${undefinedField.field}`, node: undefinedField.node }) };
  const outputType = String(checked.type ?? 'dyn');
  if (options.resultTypes && outputType !== 'dyn' && !options.resultTypes.includes(outputType)) {
    return { ok: false, error: resultTypeError(options) };
  }
  let estimatedCost = { min: 0, max: 0 };
  try {
    estimatedCost = estimateCost(parsed.ast, env.variableModels);
  } catch {
    // An expression shape the estimator does not know: no estimate rather than no rule.
  }
  installListSemantics(parsed.ast);
  hookRoot(parsed.ast);
  const perCall = options.perCallLimit ?? PER_CALL_LIMIT;
  const tracker: CostTracker = { cost: 0, limit: perCall, exceeded: false };
  const start = (budget: CelCostBudget | undefined): CostTracker => {
    tracker.cost = 0;
    tracker.exceeded = false;
    tracker.limit = budget ? Math.min(perCall, budget.remaining) : perCall;
    return tracker;
  };
  const finish = (t: CostTracker, budget: CelCostBudget | undefined, value: unknown, error: unknown): CelEvalResult => {
    const cost = t.cost;
    if (budget) budget.remaining = Math.max(0, budget.remaining - cost);
    if (t.exceeded || error instanceof CostLimitExceeded) return { ok: false, error: COST_LIMIT_EXCEEDED, reason: 'cost' };
    if (error !== undefined) return { ok: false, error: runtimeMessage(error), reason: 'runtime' };
    return { ok: true, value, cost };
  };
  const program: CelProgram = {
    expression,
    outputType,
    estimatedCost,
    evaluate(activation, budget) {
      if (budget && budget.remaining <= 0) return { ok: false, error: COST_LIMIT_EXCEEDED, reason: 'cost' };
      const t = start(budget);
      let value: unknown;
      let error: unknown;
      try {
        value = withTracker(t, () => parsed(bind(env, activation)) as unknown);
      } catch (e) {
        error = e ?? new Error('evaluation failed');
      }
      if (value instanceof Promise) {
        value.catch(() => undefined);
        return { ok: false, error: 'asynchronous evaluation is not allowed', reason: 'runtime' };
      }
      return finish(t, budget, value, error);
    },
    async evaluateAsync(activation, budget) {
      if (budget && budget.remaining <= 0) return { ok: false, error: COST_LIMIT_EXCEEDED, reason: 'cost' };
      const t: CostTracker = { cost: 0, exceeded: false, limit: budget ? Math.min(perCall, budget.remaining) : perCall };
      let value: unknown;
      let error: unknown;
      try {
        value = await withTracker(t, () => parsed(bind(env, activation)) as unknown);
      } catch (e) {
        error = e ?? new Error('evaluation failed');
      }
      return finish(t, budget, value, error);
    },
  };
  return { ok: true, program };
}
