/**
 * Runtime cost tracking, as cel-go's interpreter tracks it: every evaluated node costs 1 (iterations
 * of a comprehension re-evaluate their body, so they pay per element), and producing a string or list
 * costs a tenth of its size on top. When the per-call limit or the caller's shared budget runs out,
 * evaluation stops with cel-go's error "operation cancelled: actual cost limit exceeded".
 *
 * How: the engine evaluates every child node through its evaluator's `run`; this module replaces
 * `run` on each environment's evaluator (once) with a counting one. The counter is the tracker of the
 * evaluation running now (evaluation is synchronous; the continuation of an asynchronous one after an
 * await is not counted). Once exceeded, every further node throws again, so an error the engine
 * absorbs (`||`, `.?`) cannot let evaluation continue.
 */

export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** The cost of the evaluation running now. */
export interface CostTracker {
  cost: number;
  limit: number;
  exceeded: boolean;
}

export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

let current: CostTracker | null = null;

interface EngineNode {
  op: string;
  evaluate(ev: unknown, ast: EngineNode, ctx: unknown): unknown;
}
interface EngineEvaluator {
  run(ast: EngineNode, ctx: unknown): unknown;
}

const instrumented = new WeakSet<object>();

function costOfResult(v: unknown): number {
  if (typeof v === 'string' || Array.isArray(v)) return Math.ceil(v.length * 0.1);
  return 0;
}

/** Replaces the evaluator's run with the counting one (idempotent). */
function instrument(ev: EngineEvaluator): void {
  if (instrumented.has(ev)) return;
  instrumented.add(ev);
  ev.run = function run(this: EngineEvaluator, ast: EngineNode, ctx: unknown): unknown {
    const t = current;
    if (t === null) return ast.evaluate(this, ast, ctx);
    if (t.exceeded || ++t.cost > t.limit) {
      t.exceeded = true;
      throw new CostLimitExceeded();
    }
    const r = ast.evaluate(this, ast, ctx);
    const op = ast.op;
    if (op === 'rcall' || op === 'call' || op === '+') {
      t.cost += costOfResult(r);
      if (t.cost > t.limit) {
        t.exceeded = true;
        throw new CostLimitExceeded();
      }
    }
    return r;
  };
}

/**
 * Hooks the root node of a compiled expression so that its first evaluation instruments the
 * environment's evaluator (the engine hands the evaluator to the root node only).
 */
export function hookRoot(root: object): void {
  const node = root as EngineNode & Record<string, unknown>;
  const own = Object.prototype.hasOwnProperty.call(node, 'evaluate') ? node.evaluate : undefined;
  node.evaluate = function first(ev: unknown, ast: EngineNode, ctx: unknown): unknown {
    instrument(ev as EngineEvaluator);
    if (own) node.evaluate = own;
    else delete (node as Record<string, unknown>).evaluate;
    return node.evaluate(ev, ast, ctx);
  };
}

/** Runs fn with t as the tracker of the running evaluation. */
export function withTracker<T>(t: CostTracker, fn: () => T): T {
  const prev = current;
  current = t;
  try {
    return fn();
  } finally {
    current = prev;
  }
}
