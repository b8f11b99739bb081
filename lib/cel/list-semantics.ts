/**
 * Kubernetes' semantics for lists with x-kubernetes-list-type set or map (k8s.io/apiserver/pkg/cel
 * common/values.go): `==` ignores order, `X + Y` on a set is the union (X's elements in place, Y's
 * new ones appended in order), on a map list a merge by key (X's positions kept, values overwritten
 * by Y's for the same key, Y's other entries appended). Atomic lists keep CEL's ordered semantics.
 *
 * The engine has one `==` and one `+` for all lists; this module gives the list-typed `==`, `!=` and
 * `+` nodes of a checked expression their own evaluation (at compile time, once), which applies these
 * semantics when an operand is a set or map list and CEL's otherwise.
 */

import { celEquals, listModelOf, setListValue } from './schema-values';
import { walkAst } from './ast-walk';

interface Node {
  op: string;
  args: unknown;
  checkedType?: { kind?: string };
  meta?: { alternate?: Node };
  evaluate?: (ev: Evaluator, ast: Node, ctx: unknown) => unknown;
}
interface Evaluator {
  run(ast: Node, ctx: unknown): unknown;
}

/** Set union / map-list merge as Kubernetes adds such lists; plain concatenation otherwise. */
export function addLists(a: unknown[], b: unknown[]): unknown[] {
  const m = listModelOf(a) ?? listModelOf(b);
  if (m?.listType === 'set') {
    const out = [...a];
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
    return setListValue(out, m);
  }
  if (m?.listType === 'map' && m.listMapKeys && m.listMapKeys.length > 0) {
    const keys = m.listMapKeys;
    const keyOf = (v: unknown): unknown[] => keys.map((k) => (v instanceof Map ? v.get(k) : (v as Record<string, unknown> | null)?.[k]));
    const sameKey = (x: unknown, y: unknown): boolean => {
      const kx = keyOf(x);
      const ky = keyOf(y);
      return kx.every((v, i) => celEquals(v ?? null, ky[i] ?? null));
    };
    const out = [...a];
    for (const y of b) {
      const i = out.findIndex((x) => sameKey(x, y));
      if (i >= 0) out[i] = y;
      else out.push(y);
    }
    return setListValue(out, m);
  }
  return [...a, ...b];
}

/** Gives the list-typed `==`, `!=` and `+` nodes below root Kubernetes' list semantics. */
export function installListSemantics(root: unknown): void {
  walkAst<Node, never>(root, (n) => {
    if ((n.op !== '==' && n.op !== '!=' && n.op !== '+') || !Array.isArray(n.args) || n.args.length !== 2) return undefined;
    const [l, r] = n.args as Node[];
    if (l.checkedType?.kind !== 'list' || r.checkedType?.kind !== 'list') return undefined;
    const op = n.op;
    n.evaluate = (ev, ast, ctx) => {
      const a = ev.run(l, ctx);
      const b = ev.run(r, ctx);
      if (!Array.isArray(a) || !Array.isArray(b)) throw new Error(`no such overload: ${op} on non-list values`);
      if (op === '+') return addLists(a, b);
      const eq = celEquals(a, b);
      return op === '==' ? eq : !eq;
    };
    return undefined;
  });
}
