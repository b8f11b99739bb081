/**
 * Regular expressions as Go's regexp package runs them (RE2 syntax, linear time) for `matches`,
 * `find` and `findAll`. @bufbuild/re2 parses and compiles RE2 and answers yes/no; the match
 * positions `find` needs come from a Pike VM over its compiled program here (leftmost-first like
 * Go, every input rune visited once per program instruction: time O(pattern * input), no
 * backtracking). Compiled patterns are cached.
 */

import type { RE2JS } from '@bufbuild/re2';
import { re2 } from '../../lazy-packages';
import { celError } from './engine';

interface Inst { op: number; out: number; arg: number; runes: number[]; matchRune(r: number): boolean }
interface Prog { inst: Inst[]; start: number }

const cache = new Map<string, RE2JS>();
const CACHE_SIZE = 256;

/** A compiled RE2 pattern; an invalid pattern is a CEL error with Go's text. */
export function compileRe2(pattern: string, errorPrefix = ''): RE2JS {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let re: RE2JS;
  try {
    re = new (re2().RE2JS)(pattern);
  } catch (e) {
    throw celError(`${errorPrefix}${(e as Error).message}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}

// Instruction codes of the compiled program (read from the engine's Inst class at first use).
type OpCodes = Record<'ALT' | 'ALT_MATCH' | 'CAPTURE' | 'EMPTY_WIDTH' | 'FAIL' | 'MATCH' | 'NOP' | 'RUNE' | 'RUNE1' | 'RUNE_ANY' | 'RUNE_ANY_NOT_NL', number>;
let OPS: OpCodes | undefined;

function ops(prog: Prog): OpCodes {
  if (!OPS) {
    const I = prog.inst[0].constructor as unknown as OpCodes;
    OPS = { ALT: I.ALT, ALT_MATCH: I.ALT_MATCH, CAPTURE: I.CAPTURE, EMPTY_WIDTH: I.EMPTY_WIDTH, FAIL: I.FAIL, MATCH: I.MATCH, NOP: I.NOP, RUNE: I.RUNE, RUNE1: I.RUNE1, RUNE_ANY: I.RUNE_ANY, RUNE_ANY_NOT_NL: I.RUNE_ANY_NOT_NL };
  }
  return OPS;
}

const BEGIN_LINE = 1;
const END_LINE = 2;
const BEGIN_TEXT = 4;
const END_TEXT = 8;
const WORD_BOUNDARY = 16;
const NO_WORD_BOUNDARY = 32;

function isWordChar(r: number): boolean {
  return (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || (r >= 0x30 && r <= 0x39) || r === 0x5f;
}

/** Go's syntax.EmptyOpContext: the zero-width assertions that hold between runes r1 and r2 (-1 = text edge). */
function context(r1: number, r2: number): number {
  let op = 0;
  if (r1 < 0) op |= BEGIN_TEXT | BEGIN_LINE;
  if (r1 === 0x0a) op |= BEGIN_LINE;
  if (r2 < 0) op |= END_TEXT | END_LINE;
  if (r2 === 0x0a) op |= END_LINE;
  op |= isWordChar(r1) !== isWordChar(r2) ? WORD_BOUNDARY : NO_WORD_BOUNDARY;
  return op;
}

interface Thread { pc: number; start: number }

/** The leftmost-first match at or after rune index `from`: [start, end) in runes, or undefined. */
function search(re: RE2JS, input: number[], from: number): [number, number] | undefined {
  const prog = (re.re2() as unknown as { prog: Prog }).prog;
  const O = ops(prog);
  const n = input.length;
  let clist: Thread[] = [];
  let matched: [number, number] | undefined;
  const onList = new Int32Array(prog.inst.length).fill(-1);
  let gen = 0;

  const add = (list: Thread[], pc: number, start: number, ctx: number, mark: number): void => {
    const stack: number[] = [pc];
    while (stack.length) {
      const p = stack.pop() as number;
      if (onList[p] === mark) continue;
      onList[p] = mark;
      const inst = prog.inst[p];
      switch (inst.op) {
        case O.FAIL:
          break;
        case O.ALT:
        case O.ALT_MATCH:
          // out has priority over arg: push arg first so out is explored first
          stack.push(inst.arg, inst.out);
          break;
        case O.NOP:
        case O.CAPTURE:
          stack.push(inst.out);
          break;
        case O.EMPTY_WIDTH:
          if ((inst.arg & ~ctx) === 0) stack.push(inst.out);
          break;
        default:
          list.push({ pc: p, start });
      }
    }
  };

  for (let pos = from; pos <= n; pos++) {
    const prev = pos > 0 ? input[pos - 1] : -1;
    const cur = pos < n ? input[pos] : -1;
    // a new attempt starting here has the lowest priority; clist's threads carry the mark `gen`
    if (!matched) add(clist, prog.start, pos, context(prev, cur), gen);
    if (clist.length === 0 && matched) break;
    const nlist: Thread[] = [];
    gen++;
    const nextCtx = context(cur, pos + 1 < n ? input[pos + 1] : -1);
    for (const t of clist) {
      const inst = prog.inst[t.pc];
      if (inst.op === O.MATCH) {
        matched = [t.start, pos];
        break; // lower-priority threads are cut off (leftmost-first)
      }
      if (cur < 0) continue;
      let ok: boolean;
      if (inst.op === O.RUNE1) ok = inst.matchRune(cur);
      else if (inst.op === O.RUNE) ok = inst.matchRune(cur);
      else if (inst.op === O.RUNE_ANY) ok = true;
      else if (inst.op === O.RUNE_ANY_NOT_NL) ok = cur !== 0x0a;
      else ok = false;
      if (ok) add(nlist, inst.out, t.start, nextCtx, gen);
    }
    clist = nlist;
  }
  return matched;
}

function codePoints(s: string): number[] {
  return Array.from(s, (c) => c.codePointAt(0) as number);
}

function text(points: number[], a: number, b: number): string {
  return String.fromCodePoint(...points.slice(a, b));
}

/** Go's Regexp.FindString: the leftmost match, or '' when there is none. */
export function findString(re: RE2JS, s: string): string {
  if (!re.test(s)) return '';
  const points = codePoints(s);
  const m = search(re, points, 0);
  return m ? text(points, m[0], m[1]) : '';
}

/** Go's Regexp.FindAllString(s, n): successive non-overlapping matches, at most n (all when n < 0). */
export function findAllStrings(re: RE2JS, s: string, n: number): string[] {
  const out: string[] = [];
  if (n === 0 || !re.test(s)) return out;
  const points = codePoints(s);
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && pos <= points.length) {
    const m = search(re, points, pos);
    if (!m) break;
    let accept = true;
    if (m[1] === m[0] && m[1] === pos) {
      // an empty match right after the previous match is not reported
      if (m[0] === prevEnd) accept = false;
      pos++;
    } else if (m[1] === m[0]) {
      pos = m[1] + 1;
    } else {
      pos = m[1];
    }
    prevEnd = m[1];
    if (accept) out.push(text(points, m[0], m[1]));
  }
  return out;
}
