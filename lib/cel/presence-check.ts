/**
 * `has(self.x.y)` names fields cel-go checks at compile time: a field the object type does not
 * declare is "undefined field 'y'" where the rule is written (the engine checks only the variable).
 * This walks the presence tests of a checked expression against the schema models of the object types.
 */

import type { NodeModel } from './schema-model';

interface Node {
  op: string;
  args: unknown;
  checkedType?: { name?: string };
  meta?: { alternate?: Node; macro?: { macroHasProps?: Node[] } };
}

const isNode = (v: unknown): v is Node => !!v && typeof v === 'object' && typeof (v as Node).op === 'string';

/** The first presence test naming an undeclared field: its select node and field name. */
export function undefinedPresenceField(root: unknown, typeModels: ReadonlyMap<string, NodeModel | undefined>): { node: Node; field: string } | undefined {
  if (!isNode(root) || typeModels.size === 0) return undefined;
  const stack: Node[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const n = stack.pop() as Node;
    if (seen.has(n)) continue;
    seen.add(n);
    const props = n.meta?.macro?.macroHasProps;
    if (n.op === 'call' && Array.isArray(n.args) && n.args[0] === 'has' && props && props.length > 1) {
      let model = typeModels.get(props[props.length - 1].checkedType?.name ?? '');
      for (let i = props.length - 2; i >= 0 && model; i--) {
        const field = String((props[i].args as unknown[])[1]);
        if (model.nullable) break;
        if (model.kind === 'object') {
          const p = model.properties?.get(field);
          if (!p) return { node: props[i], field };
          model = p.node;
        } else if (model.kind === 'map') model = model.element;
        else break;
      }
    }
    if (n.meta?.alternate) stack.push(n.meta.alternate);
    const visit = (v: unknown, depth: number): void => {
      if (!v || typeof v !== 'object' || depth > 2) return;
      if (isNode(v)) stack.push(v);
      else if (Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
      else if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v as Record<string, unknown>).forEach((x) => visit(x, depth + 1));
    };
    visit(n.args, 0);
  }
  return undefined;
}
