/**
 * The static cost estimate of a checked expression, in Kubernetes' units (cel-go checker/cost.go with
 * Kubernetes' size estimates): every node costs 1, comprehensions multiply their body by the most
 * elements their range can have, string and list functions grow with the size of their inputs
 * (lib/cel/cost-table). Sizes come from the schema of the variables (maxLength, maxItems,
 * maxProperties, or what fits in a 3 MiB request: lib/cel/schema-model); a value without a schema is
 * bounded by the request size.
 */

import { modelOf, MAX_REQUEST_SIZE_BYTES, type NodeModel } from './schema-model';
import { FUNCTION_COSTS } from './cost-table';

export interface CostEstimate {
  min: number;
  max: number;
}

interface Node {
  op: string;
  args: unknown;
  checkedType?: { name?: string; kind?: string };
  meta?: { alternate?: Node; macro?: { args?: Node[]; macroHasProps?: Node[] } };
}

interface Est {
  min: number;
  max: number;
  /** Most elements (characters, items, entries) the value can have. */
  size: number;
  model?: NodeModel;
}

const UNBOUNDED_SIZE = MAX_REQUEST_SIZE_BYTES;

type Scope = ReadonlyMap<string, NodeModel | undefined>;

function isNode(v: unknown): v is Node {
  return !!v && typeof v === 'object' && typeof (v as Node).op === 'string';
}

const add = (a: number, b: number): number => Math.min(Number.MAX_SAFE_INTEGER, a + b);
const mul = (a: number, b: number): number => Math.min(Number.MAX_SAFE_INTEGER, a * b);

function sizeOf(model: NodeModel | undefined): number {
  if (!model) return UNBOUNDED_SIZE;
  return model.kind === 'object' ? (model.properties?.size ?? 0) : model.maxElements;
}

function leaf(cost: number, model?: NodeModel, size?: number): Est {
  return { min: cost, max: cost, model, size: size ?? sizeOf(model) };
}

function sum(parts: Est[], base: number): { min: number; max: number } {
  let min = base;
  let max = base;
  for (const p of parts) {
    min = add(min, p.min);
    max = add(max, p.max);
  }
  return { min, max };
}

function walk(n: Node, scope: Scope): Est {
  const alt = n.meta?.alternate;
  if (alt) return walk(alt, scope);
  const args = n.args;
  switch (n.op) {
    case 'value': {
      const v = args;
      const size = typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.length : 0;
      return leaf(0, undefined, size);
    }
    case 'id': {
      const name = String(args);
      return leaf(1, scope.get(name), scope.has(name) ? undefined : UNBOUNDED_SIZE);
    }
    case '.':
    case '.?': {
      const [obj, field] = args as [Node, string];
      const o = walk(obj, scope);
      const p = o.model?.kind === 'object' ? o.model.properties?.get(field)?.node : o.model?.kind === 'map' ? o.model.element : undefined;
      return { min: o.min + 1, max: add(o.max, 1), model: p, size: sizeOf(p) };
    }
    case '[]':
    case '[?]': {
      const [obj, idx] = args as [Node, Node];
      const o = walk(obj, scope);
      const i = walk(idx, scope);
      const el = o.model?.kind === 'list' || o.model?.kind === 'map' ? o.model.element : undefined;
      return { ...sum([o, i], 1), model: el, size: sizeOf(el) };
    }
    case 'list': {
      const parts = (args as Node[]).map((a) => walk(a, scope));
      return { ...sum(parts, 10), size: parts.length };
    }
    case 'map': {
      const parts = (args as [Node, Node][]).flatMap(([k, v]) => [walk(k, scope), walk(v, scope)]);
      return { ...sum(parts, 30), size: parts.length / 2 };
    }
    case '&&':
    case '||': {
      const [l, r] = (args as Node[]).map((a) => walk(a, scope));
      return { min: l.min, max: add(l.max, r.max), size: 0 };
    }
    case '?:': {
      const [c, t, f] = (args as Node[]).map((a) => walk(a, scope));
      return { min: c.min + Math.min(t.min, f.min), max: add(c.max, Math.max(t.max, f.max)), size: Math.max(t.size, f.size), model: t.model ?? f.model };
    }
    case 'comprehension':
      return comprehension(n, scope);
    case 'call':
    case 'rcall':
      return call(n, scope);
    default: {
      const parts = Array.isArray(args) ? (args as unknown[]).filter(isNode).map((a) => walk(a, scope)) : isNode(args) ? [walk(args, scope)] : [];
      const base = sum(parts, 1);
      const type = n.checkedType?.name ?? '';
      if (n.op === '+' && parts.length === 2 && (type === 'string' || type === 'bytes' || type.startsWith('list'))) {
        const size = add(parts[0].size, parts[1].size);
        return { min: base.min, max: add(base.max, Math.ceil(size * 0.1)), size };
      }
      if ((n.op === '==' || n.op === '!=') && parts.length === 2 && (parts[0].model?.kind === 'string' || parts[0].model?.kind === 'list')) {
        return { min: base.min, max: add(base.max, Math.ceil(Math.min(parts[0].size, parts[1].size) * 0.1)), size: 0 };
      }
      return { ...base, size: 0 };
    }
  }
}

function comprehension(n: Node, scope: Scope): Est {
  const a = n.args as { iterable: Node; iterVarName: string; init?: Node; condition?: unknown; step?: Node; result?: unknown };
  const range = walk(a.iterable, scope);
  const elem = range.model?.kind === 'list' ? range.model.element : undefined;
  const inner = new Map(scope);
  inner.set(a.iterVarName, range.model?.kind === 'map' ? modelOf({ type: 'string' }) : elem);
  const init = a.init && isNode(a.init) ? walk(a.init, scope) : leaf(0);
  const step = a.step && isNode(a.step) ? walk(a.step, inner) : leaf(1);
  const cond = isNode(a.condition) ? walk(a.condition, inner) : leaf(0);
  const result = isNode(a.result) ? walk(a.result, inner) : leaf(0);
  const perIter = add(step.max, cond.max);
  return {
    min: range.min + init.min + result.min,
    max: add(add(add(range.max, init.max), result.max), mul(range.size, perIter)),
    size: range.size,
  };
}

function call(n: Node, scope: Scope): Est {
  const macro = n.meta?.macro;
  if (macro) {
    // has(): the presence test of a field chain costs the chain.
    const props = macro.macroHasProps ?? [];
    const chain = props.length > 0 ? walk(props[props.length - 1], scope) : leaf(0);
    return { min: chain.min + props.length - 1, max: add(chain.max, props.length - 1), size: 0 };
  }
  let name: string;
  let receiver: Node | undefined;
  let rest: Node[];
  if (n.op === 'rcall') {
    const [fname, recv, fargs] = n.args as [string, Node, Node[]];
    name = fname;
    receiver = recv;
    rest = fargs;
  } else {
    const [fname, fargs] = n.args as [string, Node[]];
    name = fname;
    rest = fargs;
  }
  const all = [...(receiver ? [receiver] : []), ...rest].map((x) => walk(x, scope));
  const base = sum(all, 0);
  const r = all[0]?.size ?? 0;
  const arg = all[1]?.size ?? 0;
  const rule = FUNCTION_COSTS[name];
  let own = 1;
  if (rule) {
    switch (rule.kind) {
      case 'const': own = rule.cost; break;
      case 'traverse': own = 1 + Math.ceil(r * rule.factor); break;
      case 'traverse-arg': own = 1 + Math.ceil(arg * rule.factor); break;
      case 'product': own = 1 + mul(Math.ceil(r * rule.rFactor), Math.ceil(arg * rule.aFactor)); break;
    }
  }
  return { min: base.min + 1, max: add(base.max, own), size: r };
}

/** The estimated cost of a checked expression whose variables have the given schema models. */
export function estimateCost(root: unknown, variables: Scope): CostEstimate {
  if (!isNode(root)) return { min: 0, max: 0 };
  const e = walk(root, variables);
  return { min: e.min, max: e.max };
}
