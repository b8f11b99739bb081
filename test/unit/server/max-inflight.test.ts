/**
 * The in-flight limits' bookkeeping (lib/server/max-inflight.ts) on Koa-shaped contexts: seats
 * by kind, release when a handler fails, long-running requests and health probes without a
 * seat, the masters exemption and its switch, 0 as unlimited; and the bound of the turn-budget
 * queue that goes with the limits (requests answered 429 before Koa, exempt ones still queued).
 * The same limits over HTTPS are in test/integration/overload.test.ts.
 */
import { expect } from 'chai';
import type { Context } from 'koa';
import { maxInflight, turnQueueBound } from '../../../lib/server/max-inflight';
import { parseRequestInfo } from '../../../lib/api/request-info';
import { isLongRunning } from '../../../lib/server/long-running';
import { withTurnBudget } from '../../../lib/server/turn-budget';
import { ApiError } from '../../../lib/meta/api-errors';

function ctx(method: string, url: string, groups: string[] = ['system:authenticated']): Context {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  return {
    method, path, querystring: query, get: () => '',
    state: { requestInfo: parseRequestInfo(method, path, query), user: { name: 'u', groups } },
  } as unknown as Context;
}

/** A handler held until `release()`; `fail` makes it reject. */
function held(fail = false) {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  return { next: () => gate.then(() => { if (fail) throw new Error('handler failed'); }), release: () => release() };
}

async function status(p: Promise<void>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return err instanceof ApiError ? err.code : 500;
  }
}

describe('maxInflight', () => {
  const CM = '/api/v1/namespaces/a/configmaps';

  it('refuses past each kind\'s limit with 429 TooManyRequests and frees the seat when the handler ends, even by failing', async () => {
    const mw = maxInflight({ readOnlyLimit: 1, mutatingLimit: 2, exemptMasters: true });
    const a = held();
    const b = held(true);
    const pa = mw(ctx('POST', CM), a.next);
    const pb = mw(ctx('DELETE', `${CM}/x`), b.next);
    expect(mw.counts()).to.deep.equal({ readOnly: 0, mutating: 2 });
    let refusal: unknown;
    await mw(ctx('PATCH', `${CM}/x`), async () => undefined).catch((e) => { refusal = e; });
    expect(refusal).to.be.instanceOf(ApiError);
    expect((refusal as ApiError).toStatus()).to.deep.include({ code: 429, reason: 'TooManyRequests', message: 'Too many requests, please try again later.' });
    expect((refusal as ApiError).headers).to.deep.equal({ 'Retry-After': '1' });
    // Reads have their own seats.
    const r = held();
    const pr = mw(ctx('GET', CM), r.next);
    expect(await status(mw(ctx('GET', `${CM}/x`), async () => undefined))).to.equal(429);
    a.release();
    b.release();
    r.release();
    await pa;
    await pb.catch(() => undefined);
    await pr;
    expect(mw.counts()).to.deep.equal({ readOnly: 0, mutating: 0 });
    expect(await status(mw(ctx('POST', CM), async () => undefined))).to.equal(200);
  });

  it('gives no seat to watches, log/exec/attach/portforward/proxy subresources, /debug/pprof/ and health probes', async () => {
    const mw = maxInflight({ readOnlyLimit: 1, mutatingLimit: 1, exemptMasters: false });
    const gates = [held(), held()];
    const p = [mw(ctx('GET', CM), gates[0].next), mw(ctx('POST', CM), gates[1].next)];
    for (const [method, url] of [['GET', `${CM}?watch=true`], ['GET', '/api/v1/namespaces/a/pods/p/log'], ['POST', '/api/v1/namespaces/a/pods/p/exec'],
      ['GET', '/api/v1/namespaces/a/pods/p/attach'], ['POST', '/api/v1/namespaces/a/pods/p/portforward'], ['GET', '/api/v1/namespaces/a/services/s/proxy'],
      ['GET', '/debug/pprof/heap'], ['GET', '/healthz'], ['GET', '/readyz/etcd'], ['GET', '/livez']] as const) {
      expect(await status(mw(ctx(method, url), async () => undefined)), url).to.equal(200);
    }
    // Not probes: other paths that merely start alike.
    expect(await status(mw(ctx('GET', '/healthzz'), async () => undefined))).to.equal(429);
    expect(isLongRunning(parseRequestInfo('GET', '/debug/pprof', ''))).to.equal(false);
    for (const g of gates) g.release();
    await Promise.all(p);
  });

  it('serves system:masters past the limit unless the exemption is turned off', async () => {
    for (const exemptMasters of [true, false]) {
      const mw = maxInflight({ readOnlyLimit: 1, mutatingLimit: 1, exemptMasters });
      const g = held();
      const p = mw(ctx('POST', CM), g.next);
      expect(await status(mw(ctx('POST', CM, ['system:masters', 'system:authenticated']), async () => undefined))).to.equal(exemptMasters ? 200 : 429);
      expect(await status(mw(ctx('POST', CM), async () => undefined))).to.equal(429);
      g.release();
      await p;
    }
  });

  it('treats a limit of 0 as unlimited for that kind only', async () => {
    const mw = maxInflight({ readOnlyLimit: 0, mutatingLimit: 1, exemptMasters: false });
    const gates = Array.from({ length: 50 }, () => held());
    const reads = gates.map((g) => mw(ctx('GET', CM), g.next));
    const w = held();
    const write = mw(ctx('POST', CM), w.next);
    expect(await status(mw(ctx('POST', CM), async () => undefined))).to.equal(429);
    for (const g of [...gates, w]) g.release();
    await Promise.all([...reads, write]);
  });
});

describe('turnQueueBound', () => {
  interface Res { code?: number; headers?: Record<string, string>; body?: string; writeHead(c: number, h: Record<string, string>): void; end(b: string): void }
  const res = (): Res => ({ writeHead(c, h) { this.code = c; this.headers = h; }, end(b) { this.body = b; } });

  it('is absent when either limit is unlimited', () => {
    expect(turnQueueBound(0, 10)).to.equal(undefined);
    expect(turnQueueBound(10, 0)).to.equal(undefined);
  });

  it('answers 429 Status beyond the two limits waiting, still queues watches, and starts health probes at once', async () => {
    const started: string[] = [];
    const handle = withTurnBudget((req: { method: string; url: string }) => { started.push(req.url); }, 2, turnQueueBound(3, 2));
    const answers: Res[] = [];
    for (let i = 0; i < 10; i++) {
      const r = res();
      answers.push(r);
      handle({ method: 'POST', url: `/api/v1/namespaces/a/configmaps?i=${i}` }, r);
    }
    // 2 started this turn, 5 waiting (the bound), 3 refused.
    expect(answers.filter((a) => a.code === 429)).to.have.length(3);
    const refused = answers.find((a) => a.code === 429)!;
    expect(refused.headers).to.include({ 'retry-after': '1', 'content-type': 'application/json' });
    expect(JSON.parse(refused.body!)).to.deep.include({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'Too many requests, please try again later.' });
    const exempt = [res(), res()];
    handle({ method: 'GET', url: '/api/v1/configmaps?watch=1' }, exempt[0]);
    handle({ method: 'GET', url: '/readyz' }, exempt[1]);
    expect(exempt.map((e) => e.code)).to.deep.equal([undefined, undefined]);
    // The probe started ahead of the 5 waiting; the watch waits behind them.
    expect(started).to.deep.equal(['/api/v1/namespaces/a/configmaps?i=0', '/api/v1/namespaces/a/configmaps?i=1', '/readyz']);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(started).to.have.length(9);
    expect(started.slice(-1)).to.deep.equal(['/api/v1/configmaps?watch=1']);
  });
});
