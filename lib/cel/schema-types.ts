/**
 * Typing `self` and `oldSelf` from an OpenAPI (structural) schema: the CEL declarations a schema node
 * gives (objects as object types, maps with additionalProperties, lists by x-kubernetes-list-type,
 * int-or-string, embedded resources, preserve-unknown-fields), property names escaped as Kubernetes
 * escapes them, and the conversion of a JSON value of that schema into CEL values (integers as ints,
 * numbers as doubles, date-time strings as timestamps, ...), with the size bounds (maxLength,
 * maxItems, maxProperties) the cost estimate reads.
 *
 * First version: every schema is 'dyn' and values convert by JSON shape; lib/cel's typing replaces it.
 */

import type { CelObjectType } from './environment';
import { toCel } from './values';

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

/** The declaration of a variable typed by `schema` (self, oldSelf, a policy's params). */
export function declarationForSchema(_schema: CelSchema, _typeNamePrefix: string): SchemaDeclaration {
  return { type: 'dyn', types: [] };
}

/** A JSON value of `schema` as a CEL value of the type declarationForSchema gives. */
export function celValueForSchema(value: unknown, _schema: CelSchema | undefined): unknown {
  return toCel(value);
}
