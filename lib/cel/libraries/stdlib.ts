/**
 * Standard-library behaviour the engine lacks or has differently from cel-go, where Kubernetes users
 * meet it: conversions (int(uint), int(timestamp), string(timestamp) / string(duration) as
 * messageExpressions print them, identity duration() / timestamp(), int(double) range errors,
 * string(double) as Go prints it, string(bytes) refusing invalid UTF-8), ordering of bytes, and the
 * optional-types functions cel.OptionalTypes() has in 1.32 (optional.ofNonZeroValue, optMap,
 * optFlatMap, equality of optionals).
 */

import type { Environment } from '@marcbachmann/cel-js';
import { registerLibrary } from '../environment';
import { celCompare, celEquals } from './compare';
import { celError, DurationClass, Optional, replaceOverload, UintClass } from './engine';
import { durationString, goFloatString, timestampString } from './strings-format';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

function isZero(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof UintClass) return v.valueOf() === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof DurationClass) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.keys(v as object).length === 0;
  return false;
}

/** The engine's macro interfaces used by optMap / optFlatMap. */
interface Node { op: string; args: unknown }
interface Ctx { forkWithVariable(name: string, type: unknown): Ctx; reuse(parent: Ctx): Ctx; setIterValue(v: unknown, ev: unknown): Ctx }
interface Checker { check(node: Node, ctx: Ctx): { kind: string; valueType?: unknown }; getType(name: string): unknown }
interface Evaluator { run(node: Node, ctx: Ctx): unknown }

function optionalMacro(flat: boolean) {
  const name = flat ? 'optFlatMap' : 'optMap';
  return ({ args, receiver }: { args: Node[]; receiver: Node }) => {
    if (args[0].op !== 'id') throw celError(`${name}() variable name must be a simple identifier`);
    const m = {
      async: false,
      inner: undefined as Ctx | undefined,
      typeCheck(checker: Checker, _m: unknown, ctx: Ctx): unknown {
        const t = checker.check(receiver, ctx);
        m.inner = ctx.forkWithVariable(args[0].args as string, t.kind === 'optional' && t.valueType ? t.valueType : checker.getType('dyn'));
        checker.check(args[1], m.inner);
        return checker.getType('optional<dyn>');
      },
      evaluate(ev: Evaluator, _m: unknown, ctx: Ctx): unknown {
        const o = ev.run(receiver, ctx);
        if (!(o instanceof Optional)) throw celError(`${name}() receiver must be an optional`);
        if (!o.hasValue()) return Optional.none();
        const r = ev.run(args[1], (m.inner as Ctx).reuse(ctx).setIterValue(o.value(), ev));
        if (!flat) return Optional.of(r);
        if (!(r instanceof Optional)) throw celError('optFlatMap() expression must return an optional');
        return r;
      },
    };
    return m;
  };
}

function install(env: Environment): void {
  env.registerFunction('int(uint): int', (u: { valueOf(): bigint }) => {
    const v = u.valueOf();
    if (v > 9223372036854775807n) throw celError('integer overflow');
    return v;
  });
  env.registerFunction(`int(${TS}): int`, (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));
  env.registerFunction(`string(${TS}): string`, timestampString);
  env.registerFunction(`string(${DUR}): string`, durationString);
  env.registerFunction(`duration(${DUR}): ${DUR}`, (d: unknown) => d);
  env.registerFunction(`timestamp(${TS}): ${TS}`, (t: unknown) => t);
  for (const op of ['<', '<=', '>', '>=']) {
    env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => {
      const c = celCompare(a, b) as number;
      return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    });
  }
  env.registerFunction('OptionalNamespace.ofNonZeroValue(dyn): optional<dyn>', (_ns: unknown, v: unknown) => (isZero(v) ? Optional.none() : Optional.of(v)));
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', optionalMacro(false));
  env.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', optionalMacro(true));
  env.registerOperator('optional == optional', (a: unknown, b: unknown) => celEquals(a, b));
}

/** Replaces the engine's conversions whose results differ from cel-go (called last by the index). */
export function installStdlibOverrides(env: Environment): void {
  replaceOverload(env, 'int(1.0)', 'int(double): int', (v: number) => {
    if (!Number.isFinite(v) || v <= -9223372036854775808 || v >= 9223372036854775808) throw celError('integer overflow');
    return BigInt(Math.trunc(v));
  });
  replaceOverload(env, 'string(1.0)', 'string(double): string', goFloatString);
  replaceOverload(env, 'string(b"")', 'string(bytes): string', (b: Uint8Array) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      throw celError('invalid UTF-8 in bytes, cannot convert to string');
    }
  });
}

registerLibrary(install);
