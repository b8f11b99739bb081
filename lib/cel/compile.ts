/**
 * Compiling and evaluating one expression in an environment: parse, type-check against the declared
 * variables, check the result type the caller needs (a validation rule must be bool, a message
 * expression string), and evaluate with a cost budget. Errors are returned, never thrown: a bad
 * expression is the author's input and answers 4xx where it is written.
 */

import type { CelEnvironment } from './environment';
import { toCel } from './values';

/** A compiled expression, evaluated any number of times. */
export interface CelProgram {
  readonly expression: string;
  /** The checked result type as CEL names it ('bool', 'string', 'dyn', ...). */
  readonly outputType: string;
  /** The static cost estimate (Kubernetes' units); filled by lib/cel/cost. */
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
}

export function compile(env: CelEnvironment, expression: string, options: CompileOptions = {}): CelCompileResult {
  let parsed: ReturnType<CelEnvironment['engine']['parse']>;
  try {
    parsed = env.engine.parse(expression);
  } catch (e) {
    return { ok: false, error: `compilation failed: ERROR: ${(e as Error).message}` };
  }
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, error: `compilation failed: ERROR: ${checked.error?.message ?? 'type check failed'}` };
  const outputType = String(checked.type ?? 'dyn');
  if (options.resultTypes && outputType !== 'dyn' && !options.resultTypes.includes(outputType)) {
    return { ok: false, error: `must evaluate to ${options.resultTypes.join(' or ')}` };
  }
  const program: CelProgram = {
    expression,
    outputType,
    estimatedCost: { min: 0, max: 0 },
    evaluate(activation, _budget) {
      const bound: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(activation)) bound[k] = toCel(v);
      try {
        const value = parsed(bound) as unknown;
        if (value instanceof Promise) return { ok: false, error: 'asynchronous evaluation is not allowed', reason: 'runtime' };
        return { ok: true, value, cost: 0 };
      } catch (e) {
        return { ok: false, error: (e as Error).message, reason: 'runtime' };
      }
    },
    async evaluateAsync(activation, _budget) {
      const bound: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(activation)) bound[k] = toCel(v);
      try {
        return { ok: true, value: await (parsed(bound) as unknown), cost: 0 };
      } catch (e) {
        return { ok: false, error: (e as Error).message, reason: 'runtime' };
      }
    },
  };
  return { ok: true, program };
}
