/**
 * CEL values of schema-typed JSON (lib/cel/schema-types): the lazy object class of each object node
 * (a property is converted the first time a rule reads it, under its escaped name), Kubernetes'
 * equality of such values (objects field by field; set and map lists regardless of order, as
 * x-kubernetes-list-type says), and the string formats duration and date/date-time.
 */

import { evaluate as celEvaluate } from '@marcbachmann/cel-js';

/** The engine's duration class (exported at runtime, not in its type declarations). */
interface CelDuration {
  readonly seconds: bigint;
  readonly nanos: number;
}
/** The engine's duration class, taken from a value (the package does not export it). */
const Duration = (celEvaluate('duration("0s")') as object).constructor as new (seconds: bigint | number, nanos?: number) => CelDuration;
import type { NodeModel } from './schema-model';
import { toCel } from './values';

/** The model a list value was built from, when it is a set or map list (equality ignores order). */
const LIST_MODEL = Symbol('celListModel');

/** A CEL object value: a Map keyed by escaped property names, filled from the JSON object on demand. */
export abstract class CelObject extends Map<string, unknown> {
  abstract readonly model: NodeModel;
}

const classes = new WeakMap<NodeModel, new (raw: Record<string, unknown>) => CelObject>();

/** The value class of an object node (one per node model; the environment registers it as the node's object type). */
export function objectClassFor(m: NodeModel): new (raw: Record<string, unknown>) => CelObject {
  const hit = classes.get(m);
  if (hit) return hit;
  const props = m.properties ?? new Map();
  const C = class extends CelObject {
    readonly model = m;
    #raw: Record<string, unknown>;
    #filled = false;
    constructor(raw: Record<string, unknown>) {
      super();
      this.#raw = raw;
    }
    override get(key: string): unknown {
      const v = super.get(key);
      if (v !== undefined || this.#filled) return v;
      const p = props.get(key);
      if (!p) return undefined;
      const raw = this.#raw[p.name];
      if (raw === undefined) return undefined;
      const cel = valueOf(raw, p.node);
      super.set(key, cel);
      return cel;
    }
    override has(key: string): boolean {
      return this.get(key) !== undefined;
    }
    /** Converts every property (iteration, size, equality). */
    fill(): this {
      if (this.#filled) return this;
      for (const k of props.keys()) this.get(k);
      this.#filled = true;
      return this;
    }
    override get size(): number {
      this.fill();
      return super.size;
    }
    override entries(): MapIterator<[string, unknown]> {
      this.fill();
      return super.entries();
    }
    override keys(): MapIterator<string> {
      this.fill();
      return super.keys();
    }
    override values(): MapIterator<unknown> {
      this.fill();
      return super.values();
    }
    override [Symbol.iterator](): MapIterator<[string, unknown]> {
      return this.entries();
    }
  };
  classes.set(m, C);
  models.set(C, m);
  return C;
}

const models = new WeakMap<object, NodeModel>();

/** The schema model of a value class objectClassFor made (undefined for any other constructor). */
export function modelForClass(ctor: unknown): NodeModel | undefined {
  return ctor && typeof ctor === 'function' ? models.get(ctor) : undefined;
}

/** Marks a list value as a set or map list of model m (equality then ignores order). */
export function setListValue(items: unknown[], m?: NodeModel): unknown[] {
  if (m) Object.defineProperty(items, LIST_MODEL, { value: m, enumerable: false });
  return items;
}

/** The set or map list model a list value carries (undefined for atomic lists and literals). */
export function listModelOf(v: unknown[]): NodeModel | undefined {
  return (v as unknown as Record<symbol, NodeModel | undefined>)[LIST_MODEL];
}

/** CEL equality of two values as Kubernetes compares schema-typed values. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number') return (typeof b === 'bigint' || typeof b === 'number') && a == b; // eslint-disable-line eqeqeq
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof CelObject || b instanceof CelObject) {
    if (!(a instanceof CelObject && b instanceof CelObject) || a.model !== b.model) return false;
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!celEquals(v, b.get(k))) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    const lm = listModelOf(a) ?? listModelOf(b);
    if (lm?.listType === 'set' || lm?.listType === 'map') return unorderedEquals(a, b);
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return (a as CelDuration).seconds === (b as CelDuration).seconds && (a as CelDuration).nanos === (b as CelDuration).nanos;
  if (a instanceof Map || b instanceof Map || isPlain(a) || isPlain(b)) {
    const ea = entriesOf(a);
    const eb = entriesOf(b);
    if (!ea || !eb || ea.size !== eb.size) return false;
    for (const [k, v] of ea) if (!eb.has(k) || !celEquals(v, eb.get(k))) return false;
    return true;
  }
  return false;
}

function isPlain(v: object): boolean {
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}

function entriesOf(v: object): Map<unknown, unknown> | undefined {
  if (v instanceof Map) return v;
  if (isPlain(v)) return new Map(Object.entries(v));
  return undefined;
}

function unorderedEquals(a: unknown[], b: unknown[]): boolean {
  const used = new Array<boolean>(b.length).fill(false);
  outer: for (const x of a) {
    for (let j = 0; j < b.length; j++) {
      if (!used[j] && celEquals(x, b[j])) {
        used[j] = true;
        continue outer;
      }
    }
    return false;
  }
  return true;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
const DURATION_RE = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** A Go duration string ("1h30m", "1.5s", "0") as a CEL duration, or undefined when it is not one. */
export function toCelDuration(s: string): CelDuration | undefined {
  if (s === '0' || s === '+0' || s === '-0') return new Duration(0, 0);
  if (!DURATION_RE.test(s)) return undefined;
  let nanos = 0n;
  for (const [, num, unit] of s.matchAll(DURATION_PART)) {
    const [whole, frac = ''] = num.split('.');
    const scale = BigInt(DURATION_UNITS[unit]);
    nanos += BigInt(whole || '0') * scale;
    if (frac) nanos += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
  }
  if (s.startsWith('-')) nanos = -nanos;
  const seconds = nanos / 1_000_000_000n;
  return new Duration(seconds, Number(nanos - seconds * 1_000_000_000n));
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** An RFC 3339 date-time or full-date string as a CEL timestamp, or undefined when it is not one. */
export function toCelTimestamp(s: string): Date | undefined {
  const d = new Date(DATE_ONLY.test(s) ? `${s}T00:00:00Z` : s);
  return Number.isNaN(d.getTime()) ? undefined : d;
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
