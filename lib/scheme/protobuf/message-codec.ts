/**
 * JSON <-> protobuf for any message of proto/, driven by its reflection (field-plan.ts), with
 * the bytes Kubernetes' Go marshalling writes: fields by number, Go values (fields without
 * `(orch.nullable)`) always and explicitly, map keys sorted. Reading, a zero value of a Go value
 * field is absent from the JSON, as Go's `omitempty` output shows it.
 */
import { Reader, Type, Writer } from 'protobufjs';
import { FieldPlan, MessagePlan, planOf, WIRE } from './field-plan';
import { toNumber } from './special-types';
import { NestedCodec } from './special-type-interface';
import { messageType } from './loader';

type Json = Record<string, unknown>;

/** Lets special types (a CRD's schema unions) write and read ordinary messages inside them. */
const NESTED: NestedCodec = {
  write: (typeName, w, value) => writeMessageBody(w, planOf(messageType(typeName)), value),
  read: (typeName, r, end) => readMessageBody(r, planOf(messageType(typeName)), end),
};

const INT64 = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INTEGER = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', ...INT64]);

/** Go's sort.Strings order: by UTF-8 bytes. UTF-16 order differs only where surrogates meet U+E000..U+FFFF. */
function byteOrder(a: string, b: string): number {
  if (/[\ud800-\uffff]/.test(a) || /[\ud800-\uffff]/.test(b)) return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function where(plan: MessagePlan, f: FieldPlan): string {
  return `${plan.fullName}.${f.name}`;
}

function writeScalar(w: Writer, type: string, value: unknown, path: string): void {
  const v = value ?? zeroOf(type);
  if (type === 'string') {
    if (typeof v !== 'string') throw new TypeError(`${path}: expected a string, got ${JSON.stringify(v)}`);
    w.string(v);
  } else if (type === 'bytes') {
    if (v instanceof Uint8Array) w.bytes(v);
    else if (typeof v === 'string') w.bytes(Buffer.from(v, 'base64'));
    else throw new TypeError(`${path}: expected base64 bytes, got ${JSON.stringify(v)}`);
  } else if (type === 'bool') {
    if (typeof v !== 'boolean') throw new TypeError(`${path}: expected a boolean, got ${JSON.stringify(v)}`);
    w.bool(v);
  } else if (INTEGER.has(type)) {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${path}: expected an integer, got ${JSON.stringify(v)}`);
    (w as unknown as Record<string, (n: number) => Writer>)[type](v);
  } else {
    if (typeof v !== 'number') throw new TypeError(`${path}: expected a number, got ${JSON.stringify(v)}`);
    (w as unknown as Record<string, (n: number) => Writer>)[type](v);
  }
}

function zeroOf(type: string): unknown {
  if (type === 'string' || type === 'bytes') return '';
  return type === 'bool' ? false : 0;
}

/** One value of field `f` (a singular field, a repeated element or a map value), tag included. */
function writeValue(w: Writer, plan: MessagePlan, f: FieldPlan, value: unknown, id: number): void {
  if (f.message) {
    w.uint32((id << 3) | WIRE.bytes).fork();
    writeMessageBody(w, planOf(f.message), value);
    w.ldelim();
  } else {
    w.uint32((id << 3) | f.wireType);
    writeScalar(w, f.scalar as string, value, where(plan, f));
  }
}

/** Writes the fields of `json` as the message of `plan` (no tag, no length). */
export function writeMessageBody(w: Writer, plan: MessagePlan, json: unknown): void {
  if (plan.special) {
    plan.special.encode(w, json, NESTED);
    return;
  }
  if (json !== undefined && json !== null && !isObject(json)) {
    throw new TypeError(`${plan.fullName}: expected an object, got ${JSON.stringify(json)}`);
  }
  const obj = (json ?? {}) as Json;
  for (const f of plan.wireOrder) {
    const value = f.inline ? obj : obj[f.name];
    if (f.map) {
      if (value === undefined || value === null) continue;
      if (!isObject(value)) throw new TypeError(`${where(plan, f)}: expected a map, got ${JSON.stringify(value)}`);
      const keys = Object.keys(value).sort(f.keyType === 'string' ? byteOrder : (a, b) => Number(a) - Number(b));
      for (const key of keys) {
        w.uint32((f.id << 3) | WIRE.bytes).fork();
        w.uint32((1 << 3) | (f.keyWireType as number));
        writeScalar(w, f.keyType as string, f.keyType === 'string' ? key : f.keyType === 'bool' ? key === 'true' : Number(key), where(plan, f));
        writeValue(w, plan, f, value[key], 2);
        w.ldelim();
      }
    } else if (f.repeated) {
      if (value === undefined || value === null) continue;
      if (!Array.isArray(value)) throw new TypeError(`${where(plan, f)}: expected a list, got ${JSON.stringify(value)}`);
      for (const item of value) writeValue(w, plan, f, item, f.id);
    } else if ((value === undefined || value === null) && (f.nullable || f.scalar === 'bytes')) {
      // Go writes pointers and byte slices only when they are set (non-nil).
      continue;
    } else {
      writeValue(w, plan, f, value, f.id);
    }
  }
}

function readScalar(r: Reader, type: string): unknown {
  switch (type) {
    case 'string': return r.string();
    case 'bytes': { const b = r.bytes(); return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64'); }
    case 'bool': return r.bool();
    default: {
      const v = (r as unknown as Record<string, () => number | { low: number; high: number; unsigned?: boolean }>)[type]();
      return INT64.has(type) ? toNumber(v) : v;
    }
  }
}

function checkWire(plan: MessagePlan, f: FieldPlan, wireType: number, expected: number): void {
  if (wireType !== expected) throw new Error(`invalid wire type ${wireType} for ${where(plan, f)}`);
}

/** One value of field `f` whose tag has been read. */
function readValue(r: Reader, plan: MessagePlan, f: FieldPlan, wireType: number): unknown {
  checkWire(plan, f, wireType, f.wireType);
  if (!f.message) return readScalar(r, f.scalar as string);
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new RangeError(`${where(plan, f)}: length beyond the end of the message`);
  const value = readMessageBody(r, planOf(f.message), end);
  r.pos = end;
  return value;
}

function readMapEntry(r: Reader, plan: MessagePlan, f: FieldPlan, wireType: number): [string, unknown] {
  checkWire(plan, f, wireType, WIRE.bytes);
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new RangeError(`${where(plan, f)}: length beyond the end of the message`);
  let key: unknown = zeroOf(f.keyType as string);
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) key = readScalar(r, f.keyType as string);
    else if (tag >>> 3 === 2) value = readValue(r, plan, f, tag & 7);
    else r.skipType(tag & 7);
  }
  r.pos = end;
  if (value === undefined) value = f.message ? readMessageBody(Reader.create(new Uint8Array(0)), planOf(f.message), 0) : readZero(f);
  return [String(key), value];
}

function readZero(f: FieldPlan): unknown {
  return f.scalar === 'bytes' ? '' : zeroOf(f.scalar as string);
}

function isZeroValue(f: FieldPlan, v: unknown): boolean {
  if (f.message) {
    const special = planOf(f.message).special;
    if (special) return special.isZero?.(v) ?? false;
    return isObject(v) && Object.keys(v).length === 0;
  }
  return v === '' || v === 0 || v === false;
}

/** Reads the message of `plan` from `r.pos` to `end` as JSON (fields in Go struct order). */
export function readMessageBody(r: Reader, plan: MessagePlan, end: number): unknown {
  if (plan.special) return plan.special.decode(r, end, NESTED);
  const values = new Map<FieldPlan, unknown>();
  while (r.pos < end) {
    const tag = r.uint32();
    const f = plan.byId.get(tag >>> 3);
    const wireType = tag & 7;
    if (!f) {
      r.skipType(wireType);
    } else if (f.map) {
      const [k, v] = readMapEntry(r, plan, f, wireType);
      const map = (values.get(f) ?? {}) as Json;
      map[k] = v;
      values.set(f, map);
    } else if (f.repeated) {
      const list = (values.get(f) ?? []) as unknown[];
      if (wireType === WIRE.bytes && !f.message && f.wireType !== WIRE.bytes) {
        // A packed list of numbers, which proto2 readers accept too.
        const packedEnd = r.uint32() + r.pos;
        while (r.pos < packedEnd) list.push(readScalar(r, f.scalar as string));
      } else {
        list.push(readValue(r, plan, f, wireType));
      }
      values.set(f, list);
    } else {
      values.set(f, readValue(r, plan, f, wireType));
    }
  }
  if (r.pos !== end) throw new RangeError(`${plan.fullName}: a field runs past the end of the message`);
  const out: Json = {};
  for (const f of plan.jsonOrder) {
    // A Go slice without omitempty (HPA status.currentMetrics) is written as null when empty.
    if (!values.has(f) && f.repeated && f.noOmitempty) out[f.name] = null;
    if (!values.has(f)) continue;
    const v = values.get(f);
    if (f.inline) {
      if (isObject(v)) Object.assign(out, v);
    } else if (f.map || f.repeated) {
      if (Array.isArray(v) ? v.length : Object.keys(v as Json).length) out[f.name] = v;
    } else if (v !== undefined && (f.nullable || f.noOmitempty || !isZeroValue(f, v))) {
      out[f.name] = v;
    }
  }
  return out;
}

/** The message `typeName` (full name, no leading dot) of `json`, serialized. */
export function encodeMessage(typeName: string | Type, json: unknown): Buffer {
  const w = Writer.create();
  writeMessageBody(w, planOf(typeof typeName === 'string' ? messageType(typeName) : typeName), json);
  const out = w.finish();
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.length);
}

/** The JSON of a serialized message `typeName`. Throws on bytes that are not such a message. */
export function decodeMessage(typeName: string | Type, bytes: Uint8Array): unknown {
  const r = Reader.create(bytes);
  return readMessageBody(r, planOf(typeof typeName === 'string' ? messageType(typeName) : typeName), r.len);
}
