/**
 * cel-go's strings extension at the version Kubernetes 1.32 enables (ext.Strings(ext.StringsVersion(2)),
 * cel-go v0.22): charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring,
 * trim, join, strings.quote, format. Strings are indexed by code point (not UTF-16 unit), errors carry
 * cel-go's texts ("index out of range: 7"). `reverse` is strings version 3 (Kubernetes 1.33) and is
 * not part of 1.32. The engine's own overloads of these functions differ from cel-go (UTF-16 indexes,
 * Unicode lower/upper casing, other messages) and are replaced by `installStringOverrides`.
 *
 * Cost (library/cost.go): size-proportional functions cost ceil(size * 0.1) of the receiver
 * (STRING_COSTS); replace and split add the result size; join the list's total size.
 */

import type { Environment } from '@marcbachmann/cel-js';
import { registerLibrary } from '../environment';
import { celError, declareNamespace, replaceOverload, runes } from './engine';
import { formatStringList } from './strings-format';
import { STRING_TRAVERSAL, type CostTable } from './cost-table';

function charAt(s: string, i: bigint): string {
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) throw celError(`index out of range: ${i}`);
  return i === BigInt(r.length) ? '' : r[Number(i)];
}

function indexOfOffset(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const r = runes(s);
  const sr = runes(sub);
  if (offset < 0n) throw celError(`index out of range: ${offset}`);
  if (offset >= BigInt(r.length)) return -1n;
  for (let i = Number(offset); i < r.length - (sr.length - 1); i++) {
    let found = true;
    for (let j = 0; j < sr.length; j++) if (r[i + j] !== sr[j]) { found = false; break; }
    if (found) return BigInt(i);
  }
  return -1n;
}

function lastIndexOfOffset(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const r = runes(s);
  const sr = runes(sub);
  if (offset < 0n) throw celError(`index out of range: ${offset}`);
  if (offset >= BigInt(r.length)) return -1n;
  let off = Number(offset);
  if (off > r.length - sr.length) off = r.length - sr.length;
  for (let i = off; i >= 0; i--) {
    let found = true;
    for (let j = 0; j < sr.length; j++) if (r[i + j] !== sr[j]) { found = false; break; }
    if (found) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(s: string, sub: string): bigint {
  const len = BigInt(runes(s).length);
  if (sub === '') return len;
  return lastIndexOfOffset(s, sub, len - 1n);
}

const asciiCase = (upper: boolean) => (s: string): string =>
  s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));

/**
 * Results past this many characters cost more than Kubernetes' per-call limit (1,000,000 units at
 * 0.1 per character); they are refused before they are built, with Kubernetes' cost-limit text.
 */
const MAX_RESULT_LENGTH = 10_000_000;

function countOccurrences(s: string, old: string, limit: number): number {
  if (old === '') return Math.min(limit, runes(s).length + 1);
  let n = 0;
  for (let i = s.indexOf(old); i >= 0 && n < limit; i = s.indexOf(old, i + old.length)) n++;
  return n;
}

/** Go's strings.Replace: at most n replacements (all when n < 0); an empty `old` matches before each rune and at the end. */
function replaceN(s: string, old: string, repl: string, n: bigint): string {
  if (n === 0n || old === repl) return s;
  const limit = n < 0n ? Infinity : Number(n);
  if (s.length + countOccurrences(s, old, limit) * (repl.length - old.length) > MAX_RESULT_LENGTH) {
    throw celError('operation cancelled: actual cost limit exceeded');
  }
  if (old === '') {
    const r = runes(s);
    let out = '';
    let done = 0;
    for (let i = 0; i <= r.length; i++) {
      if (done < limit) { out += repl; done++; }
      if (i < r.length) out += r[i];
    }
    return out;
  }
  let out = '';
  let rest = s;
  let done = 0;
  while (done < limit) {
    const i = rest.indexOf(old);
    if (i < 0) break;
    out += rest.slice(0, i) + repl;
    rest = rest.slice(i + old.length);
    done++;
  }
  return out + rest;
}

/** Go's strings.SplitN: n == 0 gives no strings, n < 0 all; an empty separator splits into runes. */
function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const limit = n < 0n ? Infinity : Number(n);
  if (sep === '') {
    const r = runes(s);
    if (r.length <= limit) return r;
    return [...r.slice(0, limit - 1), r.slice(limit - 1).join('')];
  }
  const parts = s.split(sep);
  if (parts.length <= limit) return parts;
  return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(sep)];
}

function substring(s: string, start: bigint): string {
  const r = runes(s);
  if (start < 0n || start > BigInt(r.length)) throw celError(`index out of range: ${start}`);
  return r.slice(Number(start)).join('');
}

function substringRange(s: string, start: bigint, end: bigint): string {
  const r = runes(s);
  if (start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > BigInt(r.length)) throw celError(`index out of range: ${start}`);
  if (end < 0n || end > BigInt(r.length)) throw celError(`index out of range: ${end}`);
  return r.slice(Number(start), Number(end)).join('');
}

// Go's unicode.IsSpace: '\t', '\n', '\v', '\f', '\r', ' ', U+0085, U+00A0 and the Unicode Z category spaces.
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

function join(list: unknown[], sep: string): string {
  for (const e of list) if (typeof e !== 'string') throw celError(`join: invalid input: ${String(e)}`);
  return (list as string[]).join(sep);
}

const QUOTE_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** cel-go's strings.quote: double-quoted, CEL escapes for control characters, quotes and backslashes; lone surrogates become U+FFFD. */
function quote(s: string): string {
  let out = '"';
  for (const c of runes(s)) {
    const cp = c.codePointAt(0) as number;
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\uFFFD';
    else out += QUOTE_ESCAPES[c] ?? c;
  }
  return out + '"';
}

export const STRING_COSTS: CostTable = {
  'string.charAt': { kind: 'constant', cost: 1 },
  'string.indexOf': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'times size(arg0) * 0.1 as well' },
  'string.lastIndexOf': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'times size(arg0) * 0.1 as well' },
  'string.lowerAscii': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL },
  'string.upperAscii': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL },
  'string.replace': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'plus size of the result * 0.1' },
  'string.split': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'plus one per resulting element' },
  'string.substring': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL },
  'string.trim': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL },
  'list.join': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'sum of element sizes * 0.1, plus separator size per element' },
  'strings.quote': { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  'string.format': { kind: 'linear', of: 'receiver', factor: STRING_TRAVERSAL, note: 'plus the formatted arguments' },
};

/** Replaces the engine's string functions whose semantics differ from cel-go (called last by the index). */
export function installStringOverrides(env: Environment): void {
  replaceOverload(env, '"".indexOf("")', 'string.indexOf(string): int', (s: string, sub: string) => indexOfOffset(s, sub, 0n));
  replaceOverload(env, '"".indexOf("", 0)', 'string.indexOf(string, int): int', indexOfOffset);
  replaceOverload(env, '"".lastIndexOf("")', 'string.lastIndexOf(string): int', lastIndexOf);
  replaceOverload(env, '"".lastIndexOf("", 0)', 'string.lastIndexOf(string, int): int', lastIndexOfOffset);
  replaceOverload(env, '"".lowerAscii()', 'string.lowerAscii(): string', asciiCase(false));
  replaceOverload(env, '"".upperAscii()', 'string.upperAscii(): string', asciiCase(true));
  replaceOverload(env, '"".trim()', 'string.trim(): string', (s: string) => s.replace(TRIM, ''));
  replaceOverload(env, '"".substring(0)', 'string.substring(int): string', substring);
  replaceOverload(env, '"".substring(0, 0)', 'string.substring(int, int): string', substringRange);
  replaceOverload(env, '"".split("")', 'string.split(string): list<string>', (s: string, sep: string) => splitN(s, sep, -1n));
  replaceOverload(env, '"".split("", 0)', 'string.split(string, int): list<string>', splitN);
  replaceOverload(env, '[""].join()', 'list<string>.join(): string', (l: unknown[]) => join(l, ''));
  replaceOverload(env, '[""].join("")', 'list<string>.join(string): string', join);
}

registerLibrary((env) => {
  env.registerFunction('string.charAt(int): string', charAt);
  env.registerFunction('string.replace(string, string): string', (s: string, o: string, r: string) => replaceN(s, o, r, -1n));
  env.registerFunction('string.replace(string, string, int): string', replaceN);
  env.registerFunction('string.format(list<dyn>): string', formatStringList);
  declareNamespace(env, 'strings', 'kubernetes.StringsNamespace');
  env.registerFunction('kubernetes.StringsNamespace.quote(string): string', (_ns: unknown, s: string) => quote(s));
});
