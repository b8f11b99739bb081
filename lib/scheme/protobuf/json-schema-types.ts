/**
 * The messages of a CRD's schema whose JSON is not an object of their fields, with the wire
 * form of Kubernetes' Go types: `JSON` (any JSON value, its text in `raw`), and the unions
 * `JSONSchemaPropsOrArray` (a schema or a list of schemas), `JSONSchemaPropsOrBool` (a boolean
 * or a schema, which allows) and `JSONSchemaPropsOrStringArray` (a schema or a list of names).
 */
import type { Reader, Writer } from 'protobufjs';
import type { NestedCodec, SpecialType } from './special-type-interface';

const PKG = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const PROPS = `${PKG}.JSONSchemaProps`;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function wire(tag: number, expected: number, what: string): void {
  if ((tag & 7) !== expected) throw new Error(`invalid wire type ${tag & 7} for ${what}`);
}

function writeSchema(w: Writer, id: number, value: unknown, nested: NestedCodec): void {
  if (!isObject(value)) throw new TypeError(`expected a JSON schema object, got ${JSON.stringify(value)}`);
  w.uint32((id << 3) | 2).fork();
  nested.write(PROPS, w, value);
  w.ldelim();
}

function readSchema(r: Reader, nested: NestedCodec): unknown {
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new RangeError('JSONSchemaProps: length beyond the end of the message');
  const value = nested.read(PROPS, r, end);
  r.pos = end;
  return value;
}

/** apiextensions JSON: the value's JSON text; Go keeps a literal null as no bytes. */
const json: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    w.uint32(10).bytes(Buffer.from(JSON.stringify(value), 'utf8'));
  },
  decode(r, end) {
    let raw: Uint8Array | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { wire(tag, 2, 'JSON.raw'); raw = r.bytes(); } else r.skipType(tag & 7);
    }
    return raw && raw.length ? JSON.parse(Buffer.from(raw).toString('utf8')) : null;
  },
};

/** A schema (field 1) or a list of schemas (field 2); the list wins when both are set. */
const orArray: SpecialType = {
  encode(w, value, nested) {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const item of value) writeSchema(w, 2, item, nested);
    else writeSchema(w, 1, value, nested);
  },
  decode(r, end, nested) {
    let schema: unknown;
    const list: unknown[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { wire(tag, 2, 'JSONSchemaPropsOrArray.schema'); schema = readSchema(r, nested); }
      else if (tag >>> 3 === 2) { wire(tag, 2, 'JSONSchemaPropsOrArray.jSONSchemas'); list.push(readSchema(r, nested)); }
      else r.skipType(tag & 7);
    }
    return list.length ? list : schema;
  },
};

/** `allows` (field 1, always written) and a schema (field 2); JSON: the schema, else the boolean. */
const orBool: SpecialType = {
  encode(w, value, nested) {
    if (value === undefined || value === null) return;
    if (typeof value === 'boolean') { w.uint32(8).bool(value); return; }
    w.uint32(8).bool(true);
    writeSchema(w, 2, value, nested);
  },
  decode(r, end, nested) {
    let allows = false;
    let schema: unknown;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { wire(tag, 0, 'JSONSchemaPropsOrBool.allows'); allows = r.bool(); }
      else if (tag >>> 3 === 2) { wire(tag, 2, 'JSONSchemaPropsOrBool.schema'); schema = readSchema(r, nested); }
      else r.skipType(tag & 7);
    }
    return schema ?? allows;
  },
};

/** A schema (field 1) or a list of property names (field 2); the list wins when both are set. */
const orStringArray: SpecialType = {
  encode(w, value, nested) {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) { writeSchema(w, 1, value, nested); return; }
    for (const item of value) {
      if (typeof item !== 'string') throw new TypeError(`expected a list of strings, got ${JSON.stringify(value)}`);
      w.uint32(18).string(item);
    }
  },
  decode(r, end, nested) {
    let schema: unknown;
    const names: string[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { wire(tag, 2, 'JSONSchemaPropsOrStringArray.schema'); schema = readSchema(r, nested); }
      else if (tag >>> 3 === 2) { wire(tag, 2, 'JSONSchemaPropsOrStringArray.property'); names.push(r.string()); }
      else r.skipType(tag & 7);
    }
    return names.length ? names : schema;
  },
};

/** By full message name. */
export const jsonSchemaTypes: Record<string, SpecialType> = {
  [`${PKG}.JSON`]: json,
  [`${PKG}.JSONSchemaPropsOrArray`]: orArray,
  [`${PKG}.JSONSchemaPropsOrBool`]: orBool,
  [`${PKG}.JSONSchemaPropsOrStringArray`]: orStringArray,
};
