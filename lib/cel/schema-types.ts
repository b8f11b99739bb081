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
import { modelOf, withTypeAndObjectMeta, type NodeModel } from './schema-model';
import { objectClassFor, toCelDuration, toCelTimestamp, setListValue } from './schema-values';

/** The parts of an OpenAPI v3 schema node the typing reads (a structural schema as JSON). */
export interface CelSchema {
  type?: string;
  format?: string;
  properties?: Record<string, CelSchema>;
  additionalProperties?: CelSchema | boolean;
  items?: CelSchema;
  required?: string[];
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  enum?: unknown[];
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  [k: string]: unknown;
}

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

/** Converts one JSON value by its node model (exported for the lazy object class). */
export function valueOf(value: unknown, m: NodeModel): unknown {
  if (value === null || value === undefined) return null;
  switch (m.kind) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return toCel(value);
      const Ctor = objectClassFor(m);
      return new Ctor(value as Record<string, unknown>);
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return toCel(value);
      const out: Record<string, unknown> = {};
      const el = m.element as NodeModel;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = valueOf(v, el);
      return out;
    }
    case 'list': {
      if (!Array.isArray(value)) return toCel(value);
      const el = m.element as NodeModel;
      const items = value.map((v) => valueOf(v, el));
      return m.listType === 'set' || m.listType === 'map' ? setListValue(items, m) : items;
    }
    case 'int':
      return typeof value === 'number' ? BigInt(Math.trunc(value)) : toCel(value);
    case 'double':
      return typeof value === 'number' ? value : toCel(value);
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : toCel(value);
    case 'duration':
      return typeof value === 'string' ? (toCelDuration(value) ?? value) : toCel(value);
    case 'timestamp':
      return typeof value === 'string' ? (toCelTimestamp(value) ?? value) : toCel(value);
    default:
      return toCel(value);
  }
}
