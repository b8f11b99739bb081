/**
 * The static cost estimate of a checked expression, in Kubernetes' units (cel-go checker/cost.go with
 * Kubernetes' size estimates, so the numbers agree with kube-apiserver's for the same schema):
 * identifiers and field selections cost 1, constants 0, calls 1 unless lib/cel/cost-table says how
 * they grow with their inputs, `&&`/`||`/`?:` the sum of their arguments, `==` a tenth of the smaller
 * side's size, has() nothing, and the macros (all, exists, exists_one, map, filter) their body times
 * the most elements their range can have. Sizes come from the schema of the variables (maxLength x 4,
 * maxItems, maxProperties, or what fits in a 3 MiB request: lib/cel/schema-model); a value without a
 * schema has no size bound.
 */

import { modelOf, type NodeModel } from './schema-model';
import { FUNCTION_COSTS } from './cost-table';
import { LIBRARY_COSTS, type CostFormula, type CostOperand } from './libraries/costs';

export interface CostEstimate {
  min: number;
  max: number;
}

interface Node {
  op: string;
  args: unknown;
  checkedType?: { name?: string };
  meta?: { alternate?: Node; macro?: unknown };
}

interface Est {
  min: number;
  max: number;
  /** Most elements (characters, items, entries) the value can have (UNKNOWN when nothing bounds it). */
  size: number;
  model?: NodeModel;
}

const UNKNOWN = Number.MAX_SAFE_INTEGER;
type Scope = ReadonlyMap<string, NodeModel | undefined>;

const isNode = (v: unknown): v is Node => !!v && typeof v === 'object' && typeof (v as Node).op === 'string';
const add = (...xs: number[]): number => Math.min(UNKNOWN, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(UNKNOWN, a * b));
const factor = (size: number, f: number): number => (size >= UNKNOWN ? UNKNOWN : Math.ceil(size * f));

/** The size bound of a value of this schema node, as Kubernetes' size estimator gives it. */
function sizeOf(model: NodeModel | undefined): number {
  if (!model) return UNKNOWN;
  switch (model.kind) {
    case 'object': case 'int': case 'double': case 'bool': case 'timestamp': return 0;
    default: return model.maxElements;
  }
}

function est(min: number, max: number, size = UNKNOWN, model?: NodeModel): Est {
  return { min, max, size, model };
}

const typeName = (n: Node): string => n.checkedType?.name ?? '';
const isSized = (n: Node, e: Est): boolean => {
  const t = typeName(n);
  return t === 'string' || t === 'bytes' || t.startsWith('list') || e.model?.kind === 'string' || e.model?.kind === 'bytes' || e.model?.kind === 'list';
};

function walk(n: Node, scope: Scope): Est {
  if (n.op === 'rcall' && n.meta?.alternate) return macro(n, scope);
  if (n.meta?.alternate) return walk(n.meta.alternate, scope);
  const args = n.args;
  switch (n.op) {
    case 'value': {
      const v = args;
      const size = typeof v === 'string' ? [...v].length : v instanceof Uint8Array ? v.length : 1;
      return est(0, 0, size);
    }
    case 'id': {
      const name = String(args);
      const m = scope.get(name);
      return est(1, 1, sizeOf(m), m);
    }
    case '.':
    case '.?': {
      const [obj, field] = args as [Node, string];
      const o = walk(obj, scope);
      const p = o.model?.kind === 'object' ? o.model.properties?.get(field)?.node : o.model?.kind === 'map' ? o.model.element : undefined;
      return est(o.min + 1, add(o.max, 1), sizeOf(p), p);
    }
    case '[]':
    case '[?]': {
      const [obj, idx] = args as [Node, Node];
      const o = walk(obj, scope);
      const i = walk(idx, scope);
      const el = o.model?.kind === 'list' || o.model?.kind === 'map' ? o.model.element : undefined;
      return est(o.min + i.min + 1, add(o.max, i.max, 1), sizeOf(el), el);
    }
    case 'list': {
      const parts = (args as Node[]).map((a) => walk(a, scope));
      return est(10 + parts.reduce((s, p) => s + p.min, 0), add(10, ...parts.map((p) => p.max)), parts.length);
    }
    case 'map': {
      const parts = (args as [Node, Node][]).flatMap(([k, v]) => [walk(k, scope), walk(v, scope)]);
      return est(30 + parts.reduce((s, p) => s + p.min, 0), add(30, ...parts.map((p) => p.max)), parts.length / 2);
    }
    case '&&':
    case '||': {
      const [l, r] = (args as Node[]).map((a) => walk(a, scope));
      return est(l.min, add(l.max, r.max), 0);
    }
    case '?:': {
      const [c, t, f] = (args as Node[]).map((a) => walk(a, scope));
      return est(c.min + Math.min(t.min, f.min), add(c.max, Math.max(t.max, f.max)), Math.max(t.size, f.size), t.model ?? f.model);
    }
    case 'call':
    case 'rcall':
      return call(n, scope);
    default:
      return operator(n, scope);
  }
}

function operator(n: Node, scope: Scope): Est {
  const args = n.args;
  const nodes = Array.isArray(args) ? (args as unknown[]).filter(isNode) : isNode(args) ? [args] : [];
  const parts = nodes.map((a) => walk(a, scope));
  const min = parts.reduce((s, p) => s + p.min, 0);
  const max = add(...parts.map((p) => p.max));
  if (n.op === '-_' && nodes[0]?.op === 'value') return est(0, 0, 1); // a negative literal, a constant in cel-go
  if (parts.length !== 2) return est(min + 1, add(max, 1), 0);
  const [l, r] = parts;
  switch (n.op) {
    case '==':
    case '!=': {
      const c = factor(Math.min(l.size, r.size), 0.1);
      return est(min, add(max, c), 0);
    }
    case '<': case '<=': case '>': case '>=':
      if (isSized(nodes[0], l)) return est(min, add(max, factor(Math.min(l.size, r.size), 0.1)), 0);
      return est(min + 1, add(max, 1), 0);
    case '+':
      if (isSized(n, l)) {
        const size = add(l.size, r.size);
        return est(min, add(max, factor(size, 0.1)), size);
      }
      return est(min + 1, add(max, 1), 0);
    case 'in':
      if (typeName(nodes[1]).startsWith('list') || r.model?.kind === 'list') return est(min, add(max, r.size), 0);
      return est(min + 1, add(max, 1), 0);
    default:
      return est(min + 1, add(max, 1), 0);
  }
}

function call(n: Node, scope: Scope): Est {
  let name: string;
  let operands: Node[];
  if (n.op === 'rcall') {
    const [fname, recv, fargs] = n.args as [string, Node, Node[]];
    name = fname;
    operands = [recv, ...fargs];
  } else {
    const [fname, fargs] = n.args as [string, Node[]];
    name = fname;
    operands = fargs;
  }
  if (name === 'has' && n.meta?.macro) return est(0, 0, 0); // presence tests cost nothing in Kubernetes
  const parts = operands.map((a) => walk(a, scope));
  const min = parts.reduce((s, p) => s + p.min, 0);
  const max = add(...parts.map((p) => p.max));
  const r = parts[0]?.size ?? 0;
  const a = parts[1]?.size ?? 0;
  const rule = FUNCTION_COSTS[name];
  if (!rule) {
    const recvKind = n.op === 'rcall' ? kindName(operands[0]) : '';
    const lib = (recvKind ? LIBRARY_COSTS[`${recvKind}.${name}`] : undefined) ?? LIBRARY_COSTS[name];
    if (lib) return libraryCall(lib, n.op === 'rcall', parts, min, max);
    return est(min + 1, add(max, 1), name === 'size' ? 0 : UNKNOWN);
  }
  switch (rule.kind) {
    case 'const':
      return est(min + rule.cost, add(max, rule.cost), 0);
    case 'traverse':
      return est(min + 1, add(max, factor(r, rule.factor)), r);
    case 'traverse-arg':
      return est(min + 1, add(max, factor(a, rule.factor)), 0);
    case 'product':
      return est(min + 1, add(max, mul(factor(rule.addOne ? add(r, 1) : r, rule.rFactor), factor(a, rule.aFactor))), r);
  }
}

function kindName(n: Node): string {
  const t = typeName(n);
  if (t.startsWith('list')) return 'list';
  if (t.startsWith('map')) return 'map';
  return t;
}

/** A function of Kubernetes' libraries, costed by the formula its library states (lib/cel/libraries/costs). */
function libraryCall(f: CostFormula, hasReceiver: boolean, parts: Est[], min: number, max: number): Est {
  const sizeOf = (o: CostOperand): number => {
    const i = o === 'receiver' ? 0 : (hasReceiver ? 1 : 0) + (o === 'arg0' ? 0 : 1);
    return parts[i]?.size ?? 0;
  };
  let own: number;
  switch (f.kind) {
    case 'constant': own = f.cost; break;
    case 'linear': own = add(factor(sizeOf(f.of), f.factor), f.base ?? 0); break;
    case 'product': own = mul(factor(Math.max(1, sizeOf(f.of[0])), f.factor), factor(Math.max(1, sizeOf(f.of[1])), f.factor2)); break;
  }
  return est(min + 1, add(max, own), parts[0]?.size ?? UNKNOWN);
}

/** all, exists, exists_one, map, filter: cel-go's expansion, its body paid once per element of the range. */
function macro(n: Node, scope: Scope): Est {
  const [name, recv, fargs] = n.args as [string, Node, Node[]];
  const range = walk(recv, scope);
  const iterVar = fargs[0] && fargs[0].op === 'id' ? String(fargs[0].args) : '';
  const inner = new Map(scope);
  const rm = range.model;
  inner.set(iterVar, rm?.kind === 'list' ? rm.element : rm?.kind === 'map' ? modelOf({ type: 'string' }) : undefined);
  const body = fargs.slice(1).map((f) => walk(f, inner));
  const b = add(...body.map((x) => x.max));
  const N = range.size;
  let fixed: number;
  let perIter: number;
  switch (name) {
    case 'all': fixed = 1; perIter = add(3, b); break; // @not_strictly_false(accu); accu && p; result accu
    case 'exists': fixed = 1; perIter = add(4, b); break; // @not_strictly_false(!accu); accu || p
    case 'exists_one': fixed = 2; perIter = add(2, b); break; // p ? accu + 1 : accu; result accu == 1
    default: fixed = 11; perIter = add(13, b); break; // map/filter: init [], accu + [e]
  }
  return est(range.min + fixed, add(range.max, fixed, mul(N, perIter)), name === 'map' || name === 'filter' ? N : 0);
}

/** The estimated cost of a checked expression whose variables have the given schema models. */
export function estimateCost(root: unknown, variables: Scope): CostEstimate {
  if (!isNode(root)) return { min: 0, max: 0 };
  const e = walk(root, variables);
  return { min: e.min, max: e.max };
}
