/**
 * Typing `self` and `oldSelf` from an OpenAPI (structural) schema, as Kubernetes 1.32 types them:
 * objects with properties as object types (an unknown field is a compile error), maps with
 * additionalProperties as map<string, T>, arrays as list<T> (set lists compare regardless of order),
 * integer as int, number as double, string formats byte/duration/date/date-time as bytes/duration/
 * timestamp, int-or-string and schemaless preserve-unknown-fields as dyn, nullable nodes as dyn,
 * embedded resources with apiVersion, kind and metadata.name/generateName typed. Property names are
 * escaped as Kubernetes escapes them (lib/cel/escaping).
 *
 * celValueForSchema converts a JSON value of a schema into exactly those CEL values; objects convert
 * lazily (a property is converted when a rule reads it), so a rule on a large object pays for what
 * it reads.
 */

import type { CelObjectType } from './environment';
import { toCel } from './values';
import { modelOf, withTypeAndObjectMeta, type CelSchema, type NodeModel } from './schema-model';
import { objectClassFor, valueOf } from './schema-values';

export type { CelSchema } from './schema-model';


/** The CEL type of a schema node, and the object types it declares. */
export interface SchemaDeclaration {
  type: string;
  types: CelObjectType[];
}

export interface SchemaTypingOptions {
  /** The node is the root of a resource (a custom resource's schema): apiVersion, kind, metadata.name and metadata.generateName are typed even when the schema omits them. */
  resourceRoot?: boolean;
}

function rootSchema(schema: CelSchema, options?: SchemaTypingOptions): CelSchema {
  return options?.resourceRoot ? withTypeAndObjectMeta(schema) : schema;
}

/**
 * The declaration of a variable typed by `schema` (self, oldSelf, a policy's params). Object types are
 * named `${typeNamePrefix}` for the node itself and `${typeNamePrefix}.${escapedProperty}`,
 * `.__idx__` (list items), `.__elem__` (map values) below it. Declare a schema once per environment and give
 * self and oldSelf the same type.
 */
export function declarationForSchema(schema: CelSchema, typeNamePrefix: string, options?: SchemaTypingOptions): SchemaDeclaration {
  const types: CelObjectType[] = [];
  const type = typeOf(modelOf(rootSchema(schema, options)), typeNamePrefix, types);
  return { type, types };
}

function typeOf(m: NodeModel, name: string, types: CelObjectType[]): string {
  const t = baseTypeOf(m, name, types);
  return m.nullable ? 'dyn' : t;
}

function baseTypeOf(m: NodeModel, name: string, types: CelObjectType[]): string {
  switch (m.kind) {
    case 'object': {
      const fields: Record<string, string> = {};
      for (const [escaped, p] of m.properties ?? []) fields[escaped] = typeOf(p.node, `${name}.${escaped}`, types);
      types.push({ name, fields, ctor: objectClassFor(m) });
      return name;
    }
    case 'map':
      return `map<string, ${typeOf(m.element as NodeModel, `${name}.__elem__`, types)}>`;
    case 'list':
      return `list<${typeOf(m.element as NodeModel, `${name}.__idx__`, types)}>`;
    case 'int': return 'int';
    case 'double': return 'double';
    case 'bool': return 'bool';
    case 'string': return 'string';
    case 'bytes': return 'bytes';
    case 'duration': return 'google.protobuf.Duration';
    case 'timestamp': return 'google.protobuf.Timestamp';
    default: return 'dyn';
  }
}

/** A JSON value of `schema` as a CEL value of the type declarationForSchema gives (untyped JSON by shape when no schema). */
export function celValueForSchema(value: unknown, schema: CelSchema | undefined, options?: SchemaTypingOptions): unknown {
  if (!schema) return toCel(value);
  return valueOf(value, modelOf(rootSchema(schema, options)));
}

