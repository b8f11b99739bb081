/**
 * CRD-time rules of `x-kubernetes-map-type`, `x-kubernetes-list-type` and
 * `x-kubernetes-list-map-keys` on one schema node, in Kubernetes' order and words (part of
 * `ValidateCustomResourceDefinitionOpenAPISchema` and `validateMapListKeysMapSet`).
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isObject } from './structural';

type Json = Record<string, unknown>;

/** Errors of the map/list type extensions of the node `schema` at `path`. */
export function listTypeErrors(schema: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof schema.type === 'string' ? schema.type : '';
  const mapType = schema['x-kubernetes-map-type'];
  const listType = schema['x-kubernetes-list-type'];
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'] as string[] : [];
  const items = isObject(schema.items) ? schema.items : undefined;
  const hasMap = mapType !== undefined && mapType !== null;
  const hasList = listType !== undefined && listType !== null;

  if (hasMap && type !== 'object') {
    if (!type) errs.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (hasMap && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (hasList && type !== 'array') {
    if (!type) errs.push(fieldErrors.required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    const it = items['x-kubernetes-list-type'];
    if (items.type === 'array' && it !== undefined && it !== null && it !== 'atomic') {
      errs.push(fieldErrors.invalid(`${path}.items.x-kubernetes-list-type`, it, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // Kubernetes reports the items' list type as the value here (usually absent).
      errs.push(fieldErrors.invalid(`${path}.items.x-kubernetes-map-type`, it ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (hasList && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length) {
    if (!hasList) errs.push(fieldErrors.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (!keys.length) errs.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (schema.items === undefined || schema.items === null) {
      errs.push(fieldErrors.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    }
    if (Array.isArray(schema.items)) {
      errs.push(fieldErrors.invalid(`${path}.items`, schema.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    }
    if (items && items.type !== 'object') {
      errs.push(fieldErrors.invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const props = isObject(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const k of keys) {
        const p = props[k];
        if (isObject(p)) {
          if (p.type === 'array' || p.type === 'object') {
            // Kubernetes reports the items' type as the value.
            errs.push(fieldErrors.invalid(`${path}.items.properties[${k}].type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  errs.push(...mapSetItems(schema, path, listType, keys, items));
  return errs;
}

// validateMapListKeysMapSet: items of sets and maps are never null; map keys always present.
function mapSetItems(schema: Json, path: string, listType: unknown, keys: string[], items: Json | undefined): FieldError[] {
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (items.nullable === true) errs.push(fieldErrors.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const required = new Set(Array.isArray(items.required) ? items.required as string[] : []);
    const props = isObject(items.properties) ? items.properties : {};
    for (const k of keys) {
      const p = props[k];
      if (!isObject(p)) continue;
      if (!required.has(k) && (p.default === undefined || p.default === null)) {
        errs.push(fieldErrors.required(`${path}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (p.nullable === true) {
        errs.push(fieldErrors.forbidden(`${path}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  void schema;
  return errs;
}
