/**
 * Expression tables for Kubernetes' CEL libraries: each row is an expression with the value cel-go /
 * kube-apiserver 1.32 gives (ints as bigint, doubles as numbers, uints as {uint}, optionals as
 * {optional}, maps as plain objects) or the first line of the error it raises. Rows compile in the
 * environment every caller gets (celEnvironment from lib/cel), so a row that passes here passes for
 * a CRD rule or an admission policy.
 */

import { expect } from 'chai';
import { celEnvironment, compile } from '../../../../lib/cel';

export type Expected = unknown | { error: string } | { compileError: RegExp };
export type Row = [expression: string, expected: Expected];

/** A CEL result in a shape chai's deep equality compares well. */
export function plain(v: unknown): unknown {
  if (v === null || v === undefined || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('hex') };
  if (v instanceof Date) return { timestamp: v.toISOString() };
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(k)] = plain(x);
    return out;
  }
  const ctor = (v as object).constructor?.name;
  if (ctor === 'UnsignedInt') return { uint: String(v) };
  if (ctor === 'Duration') return { duration: String(v) };
  if (ctor === 'Optional') {
    const o = v as { hasValue(): boolean; value(): unknown };
    return { optional: o.hasValue() ? plain(o.value()) : null };
  }
  if (Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = plain(x);
    return out;
  }
  return { object: ctor };
}

const isError = (e: unknown): e is { error: string } => typeof e === 'object' && e !== null && 'error' in e && Object.keys(e).length === 1;
const isCompileError = (e: unknown): e is { compileError: RegExp } => typeof e === 'object' && e !== null && 'compileError' in e;

/** Defines one mocha test per row. */
export function table(rows: Row[], variables: Record<string, unknown> = {}): void {
  const env = celEnvironment({ purpose: 'crd', variables: Object.keys(variables).map((name) => ({ name, type: 'dyn' })) });
  for (const [expression, expected] of rows) {
    it(`${expression}  =>  ${isError(expected) ? `error "${expected.error}"` : isCompileError(expected) ? `compile error ${expected.compileError}` : JSON.stringify(expected, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x))}`, () => {
      const c = compile(env, expression);
      if (isCompileError(expected)) {
        expect(c.ok, 'compiles').to.equal(false);
        if (!c.ok) expect(c.error).to.match(expected.compileError);
        return;
      }
      if (!c.ok) throw new Error(`does not compile: ${c.error}`);
      const r = c.program.evaluate(variables);
      if (isError(expected)) {
        expect(r.ok, `evaluates with an error, got ${r.ok ? String(r.value) : ''}`).to.equal(false);
        if (!r.ok) expect(r.error.split('\n')[0]).to.equal(expected.error);
        return;
      }
      if (!r.ok) throw new Error(`evaluation failed: ${r.error}`);
      expect(plain(r.value)).to.deep.equal(expected);
    });
  }
}
