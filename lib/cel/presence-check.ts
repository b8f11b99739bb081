/**
 * `has(self.x.y)` names fields cel-go checks at compile time: a field the object type does not
 * declare is "undefined field 'y'" where the rule is written (the engine checks only the variable).
 * So is an optional select `self.?y` of such a field. This walks the presence tests and optional
 * selects of a checked expression against the schema models of the object types.
 */

import type { NodeModel } from './schema-model';
import { walkAst } from './ast-walk';

interface Node {
  op: string;
  args: unknown;
  checkedType?: { name?: string };
  meta?: { alternate?: Node; macro?: { macroHasProps?: Node[] } };
}

/** The first presence test naming an undeclared field: its select node and field name. */
export function undefinedPresenceField(root: unknown, typeModels: ReadonlyMap<string, NodeModel | undefined>): { node: Node; field: string } | undefined {
  if (typeModels.size === 0) return undefined;
  return walkAst<Node, { node: Node; field: string }>(root, (n) => {
    // An optional select (self.?x) of a field the object type does not declare: cel-go refuses it too.
    if (n.op === '.?' && Array.isArray(n.args)) {
      const [receiver, field] = n.args as [Node, string];
      const typeName = receiver?.checkedType?.name ?? '';
      // An optional receiver (self.?a.?b) selects from the type it holds.
      const model = typeModels.get(typeName.startsWith('optional<') && typeName.endsWith('>') ? typeName.slice(9, -1) : typeName);
      if (model && !model.nullable && model.kind === 'object' && !model.properties?.get(String(field))) return { node: n, field: String(field) };
      return undefined;
    }
    const props = n.meta?.macro?.macroHasProps;
    if (n.op !== 'call' || !Array.isArray(n.args) || n.args[0] !== 'has' || !props || props.length <= 1) return undefined;
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
    return undefined;
  });
}
