/**
 * What a command-line flag is made of, for the areas that define their own flags (lib/audit/flags.ts,
 * lib/authn/flags.ts, ...): a row (name, ServerConfig field, value kind, default, help), the value
 * kinds of Go's pflag, and the checks several areas share. The one parser that reads them all, the
 * help text and FlagError are lib/server/flags.ts's; the help order is lib/server/flag-table.ts's.
 * On the ground floor so that every area may define its flags without importing lib/server.
 */
import type { ServerConfig } from './config';
import { formatGoDuration, parseGoDuration } from './meta/go-duration';

/** How one flag's text becomes a value. `parse` throws Error(reason) on bad text. */
export interface ValueKind<T> {
  /** The word shown in help: string, bool, int, float, duration, strings, mapStringBool. */
  readonly type: string;
  /** A bare `--flag` means true; the next argument is never taken as its value. */
  readonly isBool?: boolean;
  /** `previous` is this flag's value from an earlier occurrence on the same command line. */
  parse(raw: string, previous: T | undefined): T;
  show(value: T): string;
}

export interface FlagDef<K extends keyof ServerConfig = keyof ServerConfig> {
  /** Long name without dashes. */
  readonly name: string;
  readonly shorthand?: string;
  readonly key: K;
  readonly kind: ValueKind<ServerConfig[K]>;
  readonly default: ServerConfig[K];
  readonly help: string;
  /** Returns the reason a parsed value is unacceptable, or undefined. */
  check?(value: ServerConfig[K]): string | undefined;
  /**
   * Accepted so that kube-apiserver command lines start, but nothing here acts on it: whenever
   * it is given, at any value, the start logs a warning naming it. Its help says so.
   */
  readonly withoutEffect?: true;
}

/**
 * A broken rule between flags of one area, found on the complete config: the parser throws it as
 * a FlagError with this code. `flag` is the flag to blame, without dashes; `message` is one line.
 */
export interface FlagProblem {
  readonly code: 'InvalidValue' | 'IncompatibleFlags';
  readonly message: string;
  readonly flag: string;
}

// ---- value kinds ----

const TRUE_WORDS = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE_WORDS = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

/** Go's strconv.ParseBool spellings. */
function parseBool(raw: string): boolean {
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  throw new Error('must be a boolean (true or false)');
}

export const text: ValueKind<string> = { type: 'string', parse: (raw) => raw, show: (v) => v };

export const bool: ValueKind<boolean> = { type: 'bool', isBool: true, parse: parseBool, show: String };

export function oneOf<T extends string>(allowed: readonly T[]): ValueKind<T> {
  return {
    type: 'string',
    parse(raw) {
      if (!(allowed as readonly string[]).includes(raw)) throw new Error(`must be one of ${allowed.join(', ')}`);
      return raw as T;
    },
    show: (v) => v,
  };
}

/** An int or float within [min, max] (Go's ParseInt / ParseFloat syntax, decimal only). */
function numeric(type: 'int' | 'float', min: number, max: number): ValueKind<number> {
  const syntax = type === 'int' ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
  return {
    type,
    parse(raw) {
      const n = Number(raw);
      if (syntax.test(raw) && n >= min && n <= max) return n;
      throw new Error(`must be ${type === 'int' ? 'an integer' : 'a number'} ${range}`);
    },
    show: String,
  };
}
export const int = (min: number, max: number) => numeric('int', min, max);
export const float = (min: number, max: number) => numeric('float', min, max);

/** The largest int a flag takes (JavaScript's safe integers). */
export const INT_MAX = Number.MAX_SAFE_INTEGER;

/** A Go duration (time.ParseDuration), not negative, in milliseconds; shown as Go's Duration.String(). */
export const duration: ValueKind<number> = {
  type: 'duration',
  parse(raw) {
    const ms = parseGoDuration(raw);
    if (ms < 0) throw new Error('must not be negative');
    return ms;
  },
  show: (ms) => formatGoDuration(BigInt(Math.round(ms * 1_000_000))),
};

/** Comma-separated; blanks around items and empty items are dropped; `allowed` limits the items. */
export function list<T extends string = string>(allowed?: readonly T[]): ValueKind<T[]> {
  return {
    type: 'strings',
    parse(raw, previous) {
      const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
      const bad = allowed && items.find((s) => !(allowed as readonly string[]).includes(s));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not one of ${allowed!.join(', ')}`);
      return [...(previous ?? []), ...(items as T[])];
    },
    show: (v) => v.join(','),
  };
}

/** Repeatable, one value per use, commas kept (pflag's StringArray: issuers, key files). */
export const stringArray: ValueKind<string[]> = {
  type: 'stringArray',
  parse: (raw, previous) => [...(previous ?? []), raw],
  show: (v) => v.join(','),
};

/** Optional text where unset differs from empty (`--oidc-username-prefix=""` is not unset). */
export const optionalText: ValueKind<string | undefined> = { type: 'string', parse: (raw) => raw, show: (v) => v ?? '' };

/** Comma-separated `key=value` pairs, accumulating over repeats (pflag's mapStringString). */
export const stringMap: ValueKind<Record<string, string>> = {
  type: 'mapStringString',
  parse(raw, previous) {
    const out = { ...(previous ?? {}) };
    for (const item of raw.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
      const eq = item.indexOf('=');
      if (eq <= 0) throw new Error(`${JSON.stringify(item)} must be formatted as key=value`);
      out[item.slice(0, eq)] = item.slice(eq + 1);
    }
    return out;
  },
  show: (v) => Object.entries(v).map(([k, x]) => `${k}=${x}`).join(','),
};

/** Comma-separated `key=bool`; with `valueOptional`, a bare `key` means true (runtime-config). */
export function boolMap(valueOptional: boolean): ValueKind<Record<string, boolean>> {
  return {
    type: 'mapStringBool',
    parse(raw, previous) {
      const entries: [string, boolean][] = [];
      for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
        const eq = item.indexOf('=');
        const key = (eq < 0 ? item : item.slice(0, eq)).trim();
        if (key === '') throw new Error(`missing key in ${JSON.stringify(item)}`);
        if (eq < 0 && !valueOptional) throw new Error(`missing bool value for ${key}`);
        const value = item.slice(eq + 1).trim();
        try {
          entries.push([key, eq < 0 ? true : parseBool(value)]);
        } catch {
          // Kubernetes' words: runtime-config's (resourceconfig) and feature gates' (featuregate).
          const goError = `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
          throw new Error(valueOptional ? `invalid value of ${key}: ${value}, err: ${goError}` : `invalid value of ${key}=${value}, err: ${goError}`);
        }
      }
      return Object.fromEntries([...Object.entries(previous ?? {}), ...entries]);
    },
    show: (v) => Object.entries(v).map(([k, b]) => `${k}=${b}`).join(','),
  };
}

// ---- checks several areas use ----

export const notEmpty = (v: string) => (v === '' ? 'must not be empty' : undefined);

/** Empty passes: the flag is optional. */
export function mustBeHttpsUrl(v: string): string | undefined {
  if (v === '') return undefined;
  let url: URL | undefined;
  try { url = new URL(v); } catch { url = undefined; }
  if (!url || url.protocol !== 'https:') return 'must be an https URL';
  if (url.hash || url.search || url.username || url.password) return 'must not carry a query, fragment or user info';
  return undefined;
}

/** Two flags that make sense only together (a certificate and its key): one without the other is a problem. */
export function givenTogether(a: string, av: string, b: string, bv: string): FlagProblem | undefined {
  if ((av === '') === (bv === '')) return undefined;
  return { code: 'IncompatibleFlags', message: `--${a} and --${b} must be given together`, flag: av === '' ? a : b };
}

// ---- the row ----

/** One flag's row; K ties the kind, default and check to the config field's type. */
export function flag<K extends keyof ServerConfig>(
  name: string, key: K, kind: ValueKind<ServerConfig[K]>, dflt: ServerConfig[K], help: string,
  extra: Pick<FlagDef<K>, 'shorthand' | 'check' | 'withoutEffect'> = {},
): FlagDef<K> {
  return { name, key, kind, default: dflt, help, ...extra };
}
