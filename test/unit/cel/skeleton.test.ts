/**
 * The CEL entry points every caller uses: an environment with declared variables compiles a rule,
 * refuses a rule that names an undeclared variable or has the wrong result type, and evaluates with
 * JSON values (whole numbers as ints).
 */

import { expect } from 'chai';
import { celEnvironment, compile } from '../../../lib/cel';

describe('cel: compile and evaluate', () => {
  const env = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: 'dyn' }] });

  it('evaluates a rule over a JSON object, whole numbers as ints', () => {
    const c = compile(env, 'self.replicas <= self.max && self.name.startsWith("a")', { resultTypes: ['bool'] });
    expect(c.ok).to.equal(true);
    if (!c.ok) return;
    expect(c.program.evaluate({ self: { replicas: 3, max: 5, name: 'abc' } })).to.deep.include({ ok: true, value: true });
    expect(c.program.evaluate({ self: { replicas: 6, max: 5, name: 'abc' } })).to.deep.include({ ok: true, value: false });
  });

  it('refuses an undeclared variable at compile time', () => {
    const c = compile(env, 'other.x == 1', { resultTypes: ['bool'] });
    expect(c.ok).to.equal(false);
    if (!c.ok) expect(c.error).to.match(/^compilation failed: ERROR: /);
  });

  it('refuses a result of the wrong type', () => {
    const c = compile(env, '1 + 2', { resultTypes: ['bool'] });
    expect(c.ok).to.equal(false);
  });

  it('reports a runtime error (missing key) as an error result, not a throw', () => {
    const c = compile(env, 'self.missing == 1', { resultTypes: ['bool'] });
    expect(c.ok).to.equal(true);
    if (c.ok) expect(c.program.evaluate({ self: {} }).ok).to.equal(false);
  });
});

describe('cel: toCel', () => {
  it('converts whole numbers to ints once, and passes its own output through unchanged', () => {
    const { toCel } = require('../../../lib/cel') as typeof import('../../../lib/cel');
    const source = { spec: { replicas: 3, ratio: 0.5, ports: [80, 443], names: ['a'] } };
    const once = toCel(source) as { spec: { replicas: unknown; ratio: unknown; ports: unknown[] } };
    expect(once.spec.replicas).to.equal(3n);
    expect(once.spec.ratio).to.equal(0.5);
    expect(once.spec.ports).to.deep.equal([80n, 443n]);
    expect(toCel(once)).to.equal(once);
    // The caller's object is not taken for a converted one.
    expect(toCel(source)).to.not.equal(source);
  });
});
