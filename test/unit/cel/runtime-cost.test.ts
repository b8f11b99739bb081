/**
 * The runtime cost budget: an expression stops with cel-go's "operation cancelled: actual cost limit
 * exceeded" when its per-call limit or the shared budget of a validation call runs out, so a rule
 * over a large list cannot run unbounded; results report their cost and the budget shrinks by it;
 * and tracking costs ordinary rules little (the overhead is measured and printed).
 */

import { expect } from 'chai';
import { celEnvironment, compile, declarationForSchema, celValueForSchema, CelCostBudget, PER_CALL_LIMIT, type CelProgram } from '../../../lib/cel';

const schema = { type: 'object', properties: { l: { type: 'array', items: { type: 'integer' } }, name: { type: 'string' }, replicas: { type: 'integer' } } };
const decl = declarationForSchema(schema, 'self');
const env = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: decl.type }], types: decl.types });

function program(expr: string, perCallLimit?: number): CelProgram {
  const c = compile(env, expr, { perCallLimit });
  if (!c.ok) throw new Error(c.error);
  return c.program;
}

describe('cel: runtime cost budget', () => {
  const large = celValueForSchema({ l: Array.from({ length: 1000 }, (_, i) => i), name: 'a', replicas: 1 }, schema);
  const cubic = 'self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))';

  it('stops an O(n^3) rule over a large list at the per-call limit, quickly', () => {
    const started = Date.now();
    const r = program(cubic).evaluate({ self: large });
    expect(r).to.deep.equal({ ok: false, error: 'operation cancelled: actual cost limit exceeded', reason: 'cost' });
    expect(Date.now() - started).to.be.lessThan(5000);
  });

  it('takes the cost out of a shared budget and stops when it runs out', () => {
    const p = program('self.l.all(x, x >= 0)');
    const budget = new CelCostBudget(10_000);
    const first = p.evaluate({ self: large }, budget);
    expect(first.ok).to.equal(true);
    const cost = first.ok ? first.cost : 0;
    expect(cost).to.be.greaterThan(1000).and.lessThan(10_000);
    expect(budget.remaining).to.equal(10_000 - cost);
    let last = first;
    for (let i = 0; i < 10 && last.ok; i++) last = p.evaluate({ self: large }, budget);
    expect(last).to.deep.equal({ ok: false, error: 'operation cancelled: actual cost limit exceeded', reason: 'cost' });
  });

  it('cannot be absorbed by || or optional access once exceeded', () => {
    const r = program(`(${cubic}) || true`).evaluate({ self: large });
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.reason).to.equal('cost');
  });

  it('applies the per-call limit the caller gives', () => {
    expect(program('self.l.all(x, x >= 0)', 100).evaluate({ self: large })).to.deep.include({ ok: false, reason: 'cost' });
    expect(program('self.l.all(x, x >= 0)').evaluate({ self: large })).to.deep.include({ ok: true, value: true });
    expect(PER_CALL_LIMIT).to.equal(1_000_000);
  });

  it('reports the cost of an ordinary rule, and pays little for tracking it', () => {
    const p = program('self.replicas <= 5 && self.name.startsWith("a")');
    const self = celValueForSchema({ name: 'abc', replicas: 3 }, schema);
    const r = p.evaluate({ self });
    expect(r.ok && r.value).to.equal(true);
    expect(r.ok && r.cost).to.be.within(3, 10);
    const budget = new CelCostBudget(Number.MAX_SAFE_INTEGER);
    const runs = 50_000;
    const plainEnv = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: decl.type }], types: decl.types });
    const untracked = plainEnv.engine.parse('self.replicas <= 5 && self.name.startsWith("a")');
    const time = (fn: () => unknown): number => {
      const t = process.hrtime.bigint();
      for (let i = 0; i < runs; i++) fn();
      return Number(process.hrtime.bigint() - t) / 1000 / runs;
    };
    time(() => untracked({ self }));
    time(() => p.evaluate({ self }, budget));
    const plain = time(() => untracked({ self }));
    const tracked = time(() => p.evaluate({ self }, budget));
    // eslint-disable-next-line no-console
    console.log(`      µs per evaluation: engine alone ${plain.toFixed(2)}, with cost tracking ${tracked.toFixed(2)}`);
    expect(tracked).to.be.lessThan(plain * 3 + 2);
  });

  it('limits asynchronous evaluation too', async () => {
    expect(await program(cubic).evaluateAsync({ self: large })).to.deep.equal({ ok: false, error: 'operation cancelled: actual cost limit exceeded', reason: 'cost' });
    const budget = new CelCostBudget(1000);
    const r = await program('self.replicas == 1').evaluateAsync({ self: large }, budget);
    expect(r).to.deep.include({ ok: true, value: true });
    expect(budget.remaining).to.equal(1000 - (r.ok ? r.cost : 0)).and.lessThan(1000);
  });

  it('never throws out of evaluate: a runtime error is a result', () => {
    const r = program('self.l[5000] == 1').evaluate({ self: large });
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.reason).to.equal('runtime');
  });
});
