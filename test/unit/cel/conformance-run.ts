/**
 * Runs one cel-spec conformance case (@bufbuild/cel-spec's SimpleTest) on the environment every
 * caller gets from lib/cel (the engine plus Kubernetes' libraries): declarations from the case's
 * type environment, bindings converted from protobuf Values to the engine's values, and the result
 * compared with the expected Value by CEL type and value (int, uint and double are distinct). Cases
 * that need protobuf message types, containers or abstract types are reported as not applicable.
 */

import { celEnvironment } from '../../../lib/cel';
import { Optional, UintClass, DurationClass } from '../../../lib/cel/libraries/engine';

/** The parts of cel-spec's protobuf messages the runner reads (typed loosely: generated classes). */
interface PbValue { kind: { case?: string; value?: unknown } }
interface PbType { typeKind: { case?: string; value?: unknown } }
interface PbDecl { name: string; declKind: { case?: string; value?: { type?: PbType } } }
export interface PbSimpleTest {
  name: string;
  expr: string;
  disableCheck: boolean;
  checkOnly: boolean;
  container: string;
  typeEnv: PbDecl[];
  bindings: Record<string, { kind: { case?: string; value?: PbValue } }>;
  resultMatcher: { case?: string; value?: unknown };
}

export type Outcome = { status: 'pass' } | { status: 'fail'; detail: string } | { status: 'not-applicable'; reason: string };

class NotApplicable extends Error {}

const PRIMITIVES: Record<number, string> = { 1: 'bool', 2: 'int', 3: 'uint', 4: 'double', 5: 'string', 6: 'bytes' };
const WELL_KNOWN: Record<number, string> = { 1: 'dyn', 2: 'google.protobuf.Timestamp', 3: 'google.protobuf.Duration' };

function typeName(t: PbType | undefined): string {
  const k = t?.typeKind ?? { case: undefined };
  switch (k.case) {
    case undefined:
    case 'dyn':
      return 'dyn';
    case 'primitive':
      return PRIMITIVES[k.value as number] ?? 'dyn';
    case 'wellKnown':
      return WELL_KNOWN[k.value as number] ?? 'dyn';
    case 'listType':
      return `list<${typeName((k.value as { elemType: PbType }).elemType)}>`;
    case 'mapType': {
      const m = k.value as { keyType: PbType; valueType: PbType };
      return `map<${typeName(m.keyType)}, ${typeName(m.valueType)}>`;
    }
    case 'null':
      return 'dyn';
    default:
      throw new NotApplicable(`declares a ${k.case} type`);
  }
}

function value(v: PbValue): unknown {
  const k = v.kind;
  switch (k.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
      return k.value;
    case 'int64Value':
      return BigInt(k.value as bigint);
    case 'uint64Value':
      return new UintClass(BigInt(k.value as bigint));
    case 'doubleValue':
      return k.value as number;
    case 'bytesValue':
      return k.value as Uint8Array;
    case 'listValue':
      return ((k.value as { values: PbValue[] }).values ?? []).map(value);
    case 'mapValue': {
      const m = new Map<unknown, unknown>();
      for (const e of (k.value as { entries: Array<{ key: PbValue; value: PbValue }> }).entries) m.set(value(e.key), value(e.value));
      return m;
    }
    case 'typeValue':
      return { celType: k.value as string };
    default:
      throw new NotApplicable(`uses a ${k.case ?? 'missing'} value (protobuf message)`);
  }
}

function isMap(v: unknown): v is Map<unknown, unknown> | Record<string, unknown> {
  return v instanceof Map || (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype);
}

function entries(v: Map<unknown, unknown> | Record<string, unknown>): Array<[unknown, unknown]> {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

/** Strict CEL equality for comparing a result with the expected value: types must agree. */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (expected === null) return actual === null;
  if (typeof expected === 'bigint') return typeof actual === 'bigint' && actual === expected;
  if (typeof expected === 'number') return typeof actual === 'number' && (actual === expected || (Number.isNaN(actual) && Number.isNaN(expected)));
  if (typeof expected === 'string' || typeof expected === 'boolean') return actual === expected;
  if (expected instanceof UintClass) return actual instanceof UintClass && actual.valueOf() === expected.valueOf();
  if (expected instanceof Uint8Array) return actual instanceof Uint8Array && Buffer.from(actual).equals(Buffer.from(expected));
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => sameValue(actual[i], e));
  if (typeof expected === 'object' && 'celType' in (expected as object)) {
    const name = (expected as { celType: string }).celType;
    const actualName = actual !== null && typeof actual === 'object' ? (actual as { name?: unknown }).name : undefined;
    return actualName === (name === 'null_type' ? 'null' : name);
  }
  if (expected instanceof Map) {
    if (!isMap(actual)) return false;
    const a = entries(actual);
    if (a.length !== expected.size) return false;
    return [...expected.entries()].every(([k, v]) => a.some(([k2, v2]) => sameValue(k2, k) && sameValue(v2, v)));
  }
  return false;
}

function describe(v: unknown): string {
  if (typeof v === 'bigint') return `${v} (int)`;
  if (v instanceof UintClass) return `${v.valueOf()}u`;
  if (typeof v === 'number') return `${v} (double)`;
  if (v instanceof Optional) return 'optional';
  if (v instanceof DurationClass) return `duration ${String(v)}`;
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x instanceof Map ? Object.fromEntries(x) : x));
  } catch {
    return String(v);
  }
}

const PROTO_NAMES = /TestAllTypes|NestedTestAllTypes|google\.protobuf\.(Any|Struct|Value|ListValue|NullValue|Int32Value|Int64Value|UInt32Value|UInt64Value|FloatValue|DoubleValue|BoolValue|StringValue|BytesValue|Empty|FieldMask)|cel\.expr\.|GlobalEnum|TestRequired/;

export function runCase(t: PbSimpleTest): Outcome {
  try {
    if (t.container) throw new NotApplicable('needs a container (protobuf package)');
    if (PROTO_NAMES.test(t.expr)) throw new NotApplicable('needs protobuf message types');
    const variables = t.typeEnv.filter((d) => d.declKind.case === 'ident').map((d) => ({ name: d.name, type: typeName(d.declKind.value?.type) }));
    if (t.typeEnv.some((d) => d.declKind.case === 'function')) throw new NotApplicable('declares a function');
    const activation: Record<string, unknown> = {};
    for (const [name, b] of Object.entries(t.bindings)) {
      if (b.kind.case !== 'value' || !b.kind.value) throw new NotApplicable('binds an unknown or error');
      activation[name] = value(b.kind.value);
    }
    for (const name of Object.keys(activation)) if (!variables.some((v) => v.name === name)) variables.push({ name, type: 'dyn' });
    const expected = t.resultMatcher;
    const expectedValue = expected.case === undefined ? true : expected.case === 'value' ? value(expected.value as PbValue)
      : expected.case === 'typedResult' && (expected.value as { result?: PbValue }).result ? value((expected.value as { result: PbValue }).result) : undefined;
    const env = celEnvironment({ purpose: 'crd', variables });
    let result: unknown;
    try {
      const parsed = env.engine.parse(t.expr);
      if (!t.disableCheck) {
        const checked = parsed.check();
        if (!checked.valid) throw checked.error ?? new Error('check failed');
      }
      if (t.checkOnly || (expected.case === 'typedResult' && expectedValue === undefined)) return { status: 'pass' };
      result = parsed(activation);
      if (result instanceof Promise) throw new Error('asynchronous result');
    } catch (e) {
      if (expected.case === 'evalError') return { status: 'pass' };
      return { status: 'fail', detail: `error: ${(e as Error).message.split('\n')[0]}` };
    }
    if (expected.case === 'evalError') return { status: 'fail', detail: `expected an error, got ${describe(result)}` };
    if (expected.case !== undefined && expected.case !== 'value' && expected.case !== 'typedResult') throw new NotApplicable(`expects ${expected.case}`);
    return sameValue(result, expectedValue) ? { status: 'pass' } : { status: 'fail', detail: `got ${describe(result)}, want ${describe(expectedValue)}` };
  } catch (e) {
    if (e instanceof NotApplicable) return { status: 'not-applicable', reason: e.message };
    return { status: 'fail', detail: `runner: ${(e as Error).message}` };
  }
}
