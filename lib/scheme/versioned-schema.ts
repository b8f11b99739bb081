/**
 * A kind's schema at another version of its group, when the two versions have the same fields
 * (or differ in a few named types). Kubernetes' OpenAPI names every struct after its Go type, in
 * its version's package (`io.k8s.api.storage.v1beta1.CSIDriverSpec`); a removed version served
 * over the current version's objects needs its own names, or the documents of both versions
 * would define one type twice. `schemaAtVersion` copies the schema, giving every named type of
 * the current version's package its name in the other package; types of other packages
 * (ObjectMeta, core/v1's ObjectReference) are shared as they are.
 */
import { Schema } from './schema';
import { fieldOfType, goType, namedTypeOf } from './type-names';

/** A named type's copy, changed for the other version (a field renamed, added or removed). */
export type TypeReshape = (copy: Schema) => Schema;

/**
 * `schema` with the named types of package `from` (`io.k8s.api.flowcontrol.v1`) renamed into
 * package `to`; `reshape` changes the copies of the types it names (by the name after the package).
 */
export function schemaAtVersion(schema: Schema, from: string, to: string, reshape: Record<string, TypeReshape> = {}): Schema {
  const copies = new Map<Schema, Schema>();

  const copyChildren = (s: Schema): Schema => {
    const out: Schema = { ...s };
    if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, visit(v)]));
    if (s.items) out.items = visit(s.items);
    if (s.additionalProperties) out.additionalProperties = visit(s.additionalProperties);
    return out;
  };

  const visitType = (type: Schema, name: string): Schema => {
    if (!name.startsWith(`${from}.`)) return type;
    const known = copies.get(type);
    if (known) return known;
    const short = name.slice(from.length + 1);
    const copy = goType(`${to}.${short}`, (reshape[short] ?? ((c: Schema) => c))(copyChildren(type)));
    copies.set(type, copy);
    return copy;
  };

  function visit(s: Schema): Schema {
    const named = namedTypeOf(s);
    if (!named) return copyChildren(s);
    const type = visitType(named.type, named.name);
    if (named.type === s) return type;
    if (type === named.type) return s;
    const own: Parameters<typeof fieldOfType>[1] = {};
    for (const k of ['description', 'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key', 'x-kubernetes-map-type'] as const) {
      if (s[k] !== undefined) (own as Record<string, unknown>)[k] = s[k];
    }
    return fieldOfType(type, own);
  }

  return visit(schema);
}
