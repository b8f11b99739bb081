/**
 * Messages whose JSON form is not an object of their fields, each with the wire form Go's
 * hand-written marshalling gives it (apimachinery's time_proto.go, micro_time_proto.go,
 * fieldsv1, RawExtension, intstr, resource.Quantity) or the Go type behind them (a []string newtype);
 * a CRD's JSON and JSON-schema unions come from json-schema-types.ts.
 */
import { Reader } from 'protobufjs';
import { jsonSchemaTypes } from './json-schema-types';
import { SpecialType } from './special-type-interface';

/** Unix seconds of Go's zero time.Time (0001-01-01T00:00:00Z). */
const ZERO_TIME_SECONDS = -62135596800;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Seconds and nanoseconds of an RFC 3339 timestamp; throws on anything else. */
export function parseRfc3339(value: unknown): { seconds: number; nanos: number } {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (!m) throw new TypeError(`expected an RFC 3339 timestamp, got ${JSON.stringify(value)}`);
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear puts them back.
  const date = new Date(ms);
  date.setUTCFullYear(Number(y));
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60) : 0;
  return { seconds: date.getTime() / 1000 - offset, nanos: frac ? Number(frac.slice(0, 9).padEnd(9, '0')) : 0 };
}

/** `YYYY-MM-DDTHH:MM:SS` of Unix seconds, in UTC. */
function utcSeconds(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return iso.slice(0, iso.length - 5);
}

function expectWire(tag: number, wireType: number, what: string): void {
  if ((tag & 7) !== wireType) throw new Error(`invalid wire type ${tag & 7} for ${what}`);
}

/** Reads a Timestamp-shaped body: seconds (1) and nanos (2). */
function readTimestamp(r: Reader, end: number, what: string): { seconds: number; nanos: number } {
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) { expectWire(tag, 0, `${what}.seconds`); seconds = toNumber(r.int64()); }
    else if (tag >>> 3 === 2) { expectWire(tag, 0, `${what}.nanos`); nanos = r.int32(); }
    else r.skipType(tag & 7);
  }
  return { seconds, nanos };
}

/** Reads the bytes of field 1 of a body (FieldsV1.Raw, RawExtension.raw); undefined when absent. */
function readRawField(r: Reader, end: number, what: string): Uint8Array | undefined {
  let raw: Uint8Array | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) { expectWire(tag, 2, what); raw = r.bytes(); }
    else r.skipType(tag & 7);
  }
  return raw;
}

/** An int64 as protobufjs reads it (a Long's bits, or a number) as a JS number. */
export function toNumber(v: number | { low: number; high: number; unsigned?: boolean }): number {
  if (typeof v === 'number') return v;
  return (v.unsigned ? v.high >>> 0 : v.high) * 4294967296 + (v.low >>> 0);
}

/** metav1.Time: whole seconds; Go writes nanos as 0 and the zero time as an empty body. */
const time: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    const { seconds } = parseRfc3339(value);
    const whole = Math.floor(seconds);
    if (whole === ZERO_TIME_SECONDS) return;
    w.uint32(8).int64(whole).uint32(16).int32(0);
  },
  decode(r, end) {
    if (r.pos === end) return undefined;
    const { seconds } = readTimestamp(r, end, 'Time');
    return seconds === ZERO_TIME_SECONDS ? undefined : `${utcSeconds(seconds)}Z`;
  },
};

/** metav1.MicroTime: seconds and nanos at microsecond precision; JSON has six fraction digits. */
const microTime: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    const { seconds, nanos } = parseRfc3339(value);
    const whole = Math.floor(seconds);
    const micros = Math.floor(nanos / 1000) * 1000;
    if (whole === ZERO_TIME_SECONDS && micros === 0) return;
    w.uint32(8).int64(whole).uint32(16).int32(micros);
  },
  decode(r, end) {
    if (r.pos === end) return undefined;
    const { seconds, nanos } = readTimestamp(r, end, 'MicroTime');
    if (seconds === ZERO_TIME_SECONDS && nanos === 0) return undefined;
    return `${utcSeconds(seconds)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
  },
};

/** metav1.FieldsV1: the field set in JSON; on the wire its JSON text in Raw. */
const fieldsV1: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    w.uint32(10).bytes(Buffer.from(JSON.stringify(value), 'utf8'));
  },
  decode(r, end) {
    const raw = readRawField(r, end, 'FieldsV1.Raw');
    return raw && raw.length ? JSON.parse(Buffer.from(raw).toString('utf8')) : undefined;
  },
};

/**
 * runtime.RawExtension: an embedded JSON object. Bytes given as the value are written as they
 * are (an object already serialized, e.g. in protobuf). Embedded protobuf is not turned to JSON.
 */
const rawExtension: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    w.uint32(10).bytes(value instanceof Uint8Array ? value : Buffer.from(JSON.stringify(value), 'utf8'));
  },
  decode(r, end) {
    const raw = readRawField(r, end, 'RawExtension.raw');
    if (!raw || !raw.length) return undefined;
    if (raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0) {
      throw new Error('an embedded protobuf object (RawExtension) cannot be shown as JSON');
    }
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  },
};

/** intstr.IntOrString: a JSON number or string; Go writes all three fields. */
const intOrString: SpecialType = {
  encode(w, value) {
    if (value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string') {
      throw new TypeError(`expected an integer or a string, got ${JSON.stringify(value)}`);
    }
    const isString = typeof value === 'string';
    w.uint32(8).int64(isString ? 1 : 0)
      .uint32(16).int32(typeof value === 'number' ? value : 0)
      .uint32(26).string(isString ? value : '');
  },
  decode(r, end) {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { expectWire(tag, 0, 'IntOrString.type'); type = toNumber(r.int64()); }
      else if (tag >>> 3 === 2) { expectWire(tag, 0, 'IntOrString.intVal'); intVal = r.int32(); }
      else if (tag >>> 3 === 3) { expectWire(tag, 2, 'IntOrString.strVal'); strVal = r.string(); }
      else r.skipType(tag & 7);
    }
    return type === 1 ? strVal : intVal;
  },
  isZero: (v) => v === 0 || v === '',
};

/** resource.Quantity: its canonical string; Go's zero quantity is "0". */
const quantity: SpecialType = {
  encode(w, value) {
    if (value !== undefined && value !== null && typeof value !== 'string' && typeof value !== 'number') {
      throw new TypeError(`expected a quantity string, got ${JSON.stringify(value)}`);
    }
    w.uint32(10).string(value === undefined || value === null ? '0' : String(value));
  },
  decode(r, end) {
    let s = '';
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { expectWire(tag, 2, 'Quantity.string'); s = r.string(); }
      else r.skipType(tag & 7);
    }
    return s;
  },
  isZero: (v) => v === '' || v === '0',
};

/**
 * A Go `[]string` newtype (authentication's ExtraValue): a bare JSON list of strings; on the wire
 * a message whose field 1 repeats each string. Read, an empty message is an empty list.
 */
const stringList: SpecialType = {
  encode(w, value) {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) throw new TypeError(`expected a list of strings, got ${JSON.stringify(value)}`);
    for (const item of value) {
      if (typeof item !== 'string') throw new TypeError(`expected a list of strings, got ${JSON.stringify(value)}`);
      w.uint32(10).string(item);
    }
  },
  decode(r, end) {
    const items: string[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) { expectWire(tag, 2, 'items'); items.push(r.string()); }
      else r.skipType(tag & 7);
    }
    return items;
  },
  isZero: (v) => Array.isArray(v) && v.length === 0,
};

const SPECIAL: Record<string, SpecialType> = {
  ...jsonSchemaTypes,
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': time,
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': microTime,
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': fieldsV1,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': rawExtension,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': intOrString,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': quantity,
  'k8s.io.api.authentication.v1.ExtraValue': stringList,
};

/** The special handling of a message, by full name (no leading dot). */
export function specialTypeOf(fullName: string): SpecialType | undefined {
  return SPECIAL[fullName];
}
