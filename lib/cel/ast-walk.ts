/**
 * Walking a checked expression of the engine (@marcbachmann/cel-js): every node once, macro
 * expansions (meta.alternate) included. The engine keeps a node's operands in `args` as a node, a
 * list of nodes, or small arrays and records of them; a walk looks two levels into those.
 */

/** The parts of an engine node a walk reads. */
export interface AstNode {
  op: string;
  args: unknown;
  meta?: { alternate?: AstNode };
}

export const isAstNode = (v: unknown): v is AstNode => !!v && typeof v === 'object' && typeof (v as AstNode).op === 'string';

/** The nodes directly under n. */
function children(n: AstNode, seen: Set<object>): AstNode[] {
  const out: AstNode[] = [];
  if (n.meta?.alternate) out.push(n.meta.alternate);
  const visit = (v: unknown, depth: number): void => {
    if (!v || typeof v !== 'object' || seen.has(v) || depth > 2) return;
    if (isAstNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v as Record<string, unknown>).forEach((x) => visit(x, depth + 1));
  };
  visit(n.args, 0);
  return out;
}

/** Calls visit on every node under root (root included) once; stops when visit returns a value. */
export function walkAst<N extends AstNode, R>(root: unknown, visit: (n: N) => R | undefined): R | undefined {
  if (!isAstNode(root)) return undefined;
  const stack: AstNode[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const n = stack.pop() as AstNode;
    if (seen.has(n)) continue;
    seen.add(n);
    const found = visit(n as N);
    if (found !== undefined) return found;
    stack.push(...children(n, seen));
  }
  return undefined;
}
