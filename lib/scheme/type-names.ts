/**
 * Go type names of shared schemas. Kubernetes' OpenAPI documents write a struct used in several
 * places once, as a definition named after its Go type (`io.k8s.api.core.v1.PodTemplateSpec`),
 * and refer to it from every field that holds one. A schema registered here with `goType` is
 * written that way by the OpenAPI writer (lib/api/openapi/schema-writer.ts), in every document
 * that uses it; one that is not is written inline.
 *
 * A field that holds a named type with its own description or patch extensions (a Deployment's
 * `spec.template`, a PodDisruptionBudget's `spec.selector` with patch strategy `replace`) is a
 * copy of the type's schema made with `fieldOfType`: the server validates and merges with the
 * copy, and the writer writes a reference to the type with the field's own keys beside it.
 */
import { Schema } from './schema';

const typeNames = new WeakMap<Schema, string>();
const fieldTypes = new WeakMap<Schema, Schema>();

/** Registers `schema` as the Go type `definition` (`io.k8s.api.apps.v1.DeploymentSpec`); returns it. */
export function goType<S extends Schema>(definition: string, schema: S): S {
  typeNames.set(schema, definition);
  return schema;
}

/** A field holding the named `type`, with the field's own description and extensions. */
export function fieldOfType(type: Schema, own: Pick<Schema, 'description' | 'x-kubernetes-patch-strategy' | 'x-kubernetes-patch-merge-key' | 'x-kubernetes-map-type'>): Schema {
  const field: Schema = { ...type, ...own };
  fieldTypes.set(field, type);
  return field;
}

/** The named type `s` is, or is a field of: its definition name and schema. */
export function namedTypeOf(s: Schema): { name: string; type: Schema } | undefined {
  const type = fieldTypes.get(s) ?? s;
  const name = typeNames.get(type);
  return name === undefined ? undefined : { name, type };
}
