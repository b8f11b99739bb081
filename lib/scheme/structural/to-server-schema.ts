/**
 * Structural schema → the server's own `Schema` (lib/scheme/schema.ts), the single description
 * of a kind used by server-side apply (list types and map keys; lists without a type are
 * `atomic`, as Kubernetes' structural-to-SMD conversion makes them), unknown-field reporting and
 * OpenAPI. Embedded resources (and, with `embeddedMeta`, the root) get apiVersion, kind and
 * ObjectMeta at metadata.
 */
import { Schema } from '../schema';
import { objectMeta } from '../meta-schema';
import { Structural } from './structural';

const SCALARS = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Options of toServerSchema. */
export interface ServerSchemaOptions {
  /** Treat the root as an object: add apiVersion, kind and ObjectMeta (a custom resource's root). */
  embeddedMeta?: boolean;
}

/** Converts a structural schema to the server's Schema. */
export function toServerSchema(s: Structural, opts: ServerSchemaOptions = {}): Schema {
  return convert(s, !!opts.embeddedMeta);
}

function convert(s: Structural, embedded: boolean): Schema {
  const out: Schema = {};
  if (s.type && SCALARS.has(s.type)) out.type = s.type as Schema['type'];
  if (s.format) out.format = s.format;
  if (s.description) out.description = s.description;
  if (s.required) out.required = [...s.required];
  if (s.enum) {
    const scalars = s.enum.filter((e): e is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof e));
    if (scalars.length) out.enum = scalars;
  }
  if (s.hasDefault) out.default = structuredClone(s.default);
  if (s.nullable) out.nullable = true;
  if (s.xPreserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.xIntOrString) out['x-kubernetes-int-or-string'] = true;
  if (s.xEmbeddedResource) out['x-kubernetes-embedded-resource'] = true;
  if (s.xMapType === 'atomic' || s.xMapType === 'granular') out['x-kubernetes-map-type'] = s.xMapType;
  if (s.type === 'array') {
    const lt = s.xListType === 'set' || s.xListType === 'map' ? s.xListType : 'atomic';
    out['x-kubernetes-list-type'] = lt;
    if (lt === 'map' && s.xListMapKeys) out['x-kubernetes-list-map-keys'] = [...s.xListMapKeys];
  }
  if (s.properties) {
    out.properties = {};
    for (const [k, v] of Object.entries(s.properties)) out.properties[k] = convert(v, false);
  }
  if (typeof s.additionalProperties === 'object') out.additionalProperties = convert(s.additionalProperties, false);
  else if (s.additionalProperties === true) out.additionalProperties = { 'x-kubernetes-preserve-unknown-fields': true };
  if (s.items) out.items = convert(s.items, false);
  if (embedded || s.xEmbeddedResource) {
    out.type = 'object';
    out.properties = {
      apiVersion: { type: 'string', ...out.properties?.apiVersion },
      kind: { type: 'string', ...out.properties?.kind },
      ...out.properties,
      metadata: objectMeta,
    };
  }
  return out;
}
