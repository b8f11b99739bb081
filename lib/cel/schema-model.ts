/**
 * The CEL model of a structural schema node, as Kubernetes derives it (k8s.io/apiserver/pkg/cel/common
 * schemas.go, apiextensions-apiserver schema/cel/model): which CEL type a node has, the object
 * properties under their escaped names, and the size bounds the cost estimate reads: the most
 * elements a value can have (maxLength x 4 bytes, maxItems, maxProperties, or when absent what fits in
 * a 3 MiB request given the smallest serialized element) and the smallest serialized size of a value.
 * Built once per schema node and cached, so typing, value conversion and cost share it.
 */

import { escapeCelName } from './escaping';

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

/** Kubernetes' request size limit the size estimates are derived from (3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MIN_STRING_SIZE = 2; // ""
const MIN_NUMBER_SIZE = 1;
const MIN_BOOL_SIZE = 4;
const JSON_DATE_SIZE = 12; // "2006-01-02"
const MIN_DATETIME_SIZE = 21;
const MIN_DURATION_SIZE = 3;
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 64;

export type NodeKind =
  | 'object' | 'map' | 'list' | 'int' | 'double' | 'bool' | 'string' | 'bytes'
  | 'duration' | 'timestamp' | 'int-or-string' | 'dyn';

export interface PropertyModel {
  /** The JSON property name. */
  name: string;
  node: NodeModel;
}

export interface NodeModel {
  kind: NodeKind;
  schema: CelSchema;
  /** Object properties by escaped CEL name (names Kubernetes cannot escape are left out). */
  properties?: Map<string, PropertyModel>;
  /** List items / map values. */
  element?: NodeModel;
  /** x-kubernetes-list-type of a list ('atomic' when absent). */
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  nullable: boolean;
  /** Most elements (characters in bytes, items, properties) a value can have. */
  maxElements: number;
  /** Smallest size of a serialized value, in bytes. */
  minSerializedSize: number;
}

const cache = new WeakMap<CelSchema, NodeModel>();
const rootCache = new WeakMap<CelSchema, CelSchema>();

/** A resource root (a custom resource, an embedded resource) with apiVersion, kind, metadata.name/generateName always typed. */
export function withTypeAndObjectMeta(schema: CelSchema): CelSchema {
  const hit = rootCache.get(schema);
  if (hit) return hit;
  const props: Record<string, CelSchema> = { ...(schema.properties ?? {}) };
  props.apiVersion = props.apiVersion ?? { type: 'string' };
  props.kind = props.kind ?? { type: 'string' };
  const meta = props.metadata ?? { type: 'object' };
  props.metadata = {
    ...meta,
    type: 'object',
    properties: { ...(meta.properties ?? {}), name: meta.properties?.name ?? { type: 'string' }, generateName: meta.properties?.generateName ?? { type: 'string' } },
  };
  const out: CelSchema = { ...schema, type: 'object', properties: props };
  rootCache.set(schema, out);
  return out;
}

/** The model of a schema node (cached per node object). */
export function modelOf(schema: CelSchema): NodeModel {
  const hit = cache.get(schema);
  if (hit) return hit;
  const m = build(schema);
  cache.set(schema, m);
  return m;
}

function zeroIfNegative(n: number): number {
  return n < 0 ? 0 : n;
}

function build(s: CelSchema): NodeModel {
  const nullable = s.nullable === true;
  if (s['x-kubernetes-int-or-string']) {
    return { kind: 'int-or-string', schema: s, nullable, maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1 };
  }
  const schema = s['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta(s) : s;
  switch (schema.type) {
    case 'array': {
      if (!schema.items) return dyn(schema);
      const element = modelOf(schema.items['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta(schema.items) : schema.items);
      const maxItems = typeof schema.maxItems === 'number' ? zeroIfNegative(schema.maxItems) : estimateMaxArrayItemsFromMinSize(element.minSerializedSize);
      const lt = schema['x-kubernetes-list-type'];
      return {
        kind: 'list', schema, element, nullable, maxElements: maxItems, minSerializedSize: 2,
        listType: lt === 'set' || lt === 'map' ? lt : 'atomic',
        listMapKeys: schema['x-kubernetes-list-map-keys'],
      };
    }
    case 'object': {
      const ap = schema.additionalProperties;
      if (ap && typeof ap === 'object') {
        const element = modelOf(ap);
        const maxProps = typeof schema.maxProperties === 'number' ? zeroIfNegative(schema.maxProperties) : estimateMaxAdditionalPropertiesFromMinSize(element.minSerializedSize);
        return { kind: 'map', schema, element, nullable, maxElements: maxProps, minSerializedSize: 2 };
      }
      if (!schema.properties && schema['x-kubernetes-preserve-unknown-fields']) return dyn(schema);
      const properties = new Map<string, PropertyModel>();
      const required = new Set(schema.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        const node = modelOf(prop);
        const escaped = escapeCelName(name);
        if (escaped !== undefined) properties.set(escaped, { name, node });
        if (required.has(name) && prop.default === undefined) minSize += name.length + node.minSerializedSize + 4;
      }
      return { kind: 'object', schema, properties, nullable, maxElements: properties.size, minSerializedSize: minSize };
    }
    case 'string': {
      switch (schema.format) {
        case 'byte':
          return { kind: 'bytes', schema, nullable, maxElements: typeof schema.maxLength === 'number' ? zeroIfNegative(schema.maxLength) : estimateMaxStringLengthPerRequest(schema), minSerializedSize: MIN_STRING_SIZE };
        case 'duration':
          return { kind: 'duration', schema, nullable, maxElements: estimateMaxStringLengthPerRequest(schema), minSerializedSize: MIN_DURATION_SIZE };
        case 'date':
          return { kind: 'timestamp', schema, nullable, maxElements: 0, minSerializedSize: JSON_DATE_SIZE };
        case 'date-time':
          return { kind: 'timestamp', schema, nullable, maxElements: 0, minSerializedSize: MIN_DATETIME_SIZE };
      }
      let maxLen: number;
      if (typeof schema.maxLength === 'number') maxLen = zeroIfNegative(schema.maxLength) * 4;
      else if (Array.isArray(schema.enum) && schema.enum.length > 0) maxLen = Math.max(...schema.enum.map((e) => (typeof e === 'string' ? e.length : 0)));
      else maxLen = estimateMaxStringLengthPerRequest(schema);
      return { kind: 'string', schema, nullable, maxElements: maxLen, minSerializedSize: MIN_STRING_SIZE };
    }
    case 'boolean':
      return { kind: 'bool', schema, nullable, maxElements: 0, minSerializedSize: MIN_BOOL_SIZE };
    case 'number':
      return { kind: 'double', schema, nullable, maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE };
    case 'integer':
      return { kind: 'int', schema, nullable, maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE };
  }
  return dyn(schema);
}

function dyn(schema: CelSchema): NodeModel {
  return { kind: 'dyn', schema, nullable: schema.nullable === true, maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1 };
}

function estimateMaxStringLengthPerRequest(s: CelSchema): number {
  switch (s.format) {
    case 'duration': return MAX_DURATION_SIZE_JSON;
    case 'date': return JSON_DATE_SIZE;
    case 'date-time': return MAX_DATETIME_SIZE_JSON;
    default: return MAX_REQUEST_SIZE_BYTES - 2; // minus the quotes
  }
}

/** Most items a list can have in a request when each item serializes to at least minSize bytes (plus a comma). */
export function estimateMaxArrayItemsFromMinSize(minSize: number): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));
}

/** Most entries a map can have in a request: each entry is a key (at least "") plus colon and comma plus a value. */
export function estimateMaxAdditionalPropertiesFromMinSize(minSize: number): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 6));
}

/**
 * How many times a schema node can occur in one object, given the maxItems/maxProperties of the lists
 * and maps above it (undefined: unbounded). The CRD rule cost is multiplied by it (Kubernetes
 * apiextensions validation: unbounded lists and maps inside lists multiply a rule's cost).
 */
export function maxCardinality(ancestors: ReadonlyArray<CelSchema>): number | undefined {
  let result = 1;
  for (const a of ancestors) {
    let n: number | undefined;
    if (a.type === 'array') n = typeof a.maxItems === 'number' ? a.maxItems : undefined;
    else if (a.type === 'object' && a.additionalProperties && typeof a.additionalProperties === 'object') n = typeof a.maxProperties === 'number' ? a.maxProperties : undefined;
    else continue;
    if (n === undefined) return undefined;
    result *= n;
  }
  return result;
}

/** The number Kubernetes multiplies a rule's cost by: maxCardinality, or the request-size bound when unbounded. */
export function cardinalityOrRequestBound(ancestors: ReadonlyArray<CelSchema>, leaf: CelSchema): number {
  const c = maxCardinality(ancestors);
  if (c !== undefined) return c;
  return estimateMaxArrayItemsFromMinSize(modelOf(leaf).minSerializedSize);
}
