/**
 * etcd goes away under a running server: requests fail fast with 503 instead of hanging,
 * readiness fails while liveness (without etcd) holds, and the server keeps running.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

/** A hang check, not a benchmark: an unreachable etcd must be reported well before clients give up. */
const MAX_FAILURE_MS = 10_000;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

describe('etcd outage', function () {
  this.timeout(60_000);
  let t: TestServer;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => { uncaught.push(err); };

  before(async () => {
    t = await startTestServer();
    const res = await t.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'before-outage' }, data: { k: 'v' } });
    expect(res.status, res.text).to.equal(201);
    process.on('unhandledRejection', onUncaught);
    await t.etcd.stop();
  });
  after(async () => {
    process.off('unhandledRejection', onUncaught);
    await t?.stop();
  });

  it('a GET answers 503 ServiceUnavailable as a Status, quickly', async () => {
    const { value: res, ms } = await timed(() => t.get('/api/v1/namespaces/default/configmaps/before-outage'));
    expect(res.status, res.text).to.equal(503);
    expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
    // Clients wait and retry instead of failing: Retry-After, and the same in the Status details.
    expect(res.headers['retry-after']).to.equal('1');
    expect(res.body.details).to.deep.include({ retryAfterSeconds: 1 });
    expect(ms).to.be.below(MAX_FAILURE_MS);
  });

  it('a list answers 503 quickly', async () => {
    const { value: res, ms } = await timed(() => t.get('/api/v1/namespaces'));
    expect(res.status, res.text).to.equal(503);
    expect(res.body.reason).to.equal('ServiceUnavailable');
    expect(ms).to.be.below(MAX_FAILURE_MS);
  });

  it('a POST answers 503 quickly', async () => {
    const { value: res, ms } = await timed(() =>
      t.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'during-outage' }, data: { k: 'v' } }));
    expect(res.status, res.text).to.equal(503);
    expect(res.body.reason).to.equal('ServiceUnavailable');
    expect(ms).to.be.below(MAX_FAILURE_MS);
  });

  it('/readyz fails with [-]etcd failed', async () => {
    const { value: res, ms } = await timed(() => t.get('/readyz?verbose'));
    expect(res.status).to.equal(500);
    const lines = res.text.split('\n');
    expect(lines).to.include('[-]etcd failed: reason withheld');
    expect(lines).to.include('readyz check failed');
    expect(ms).to.be.below(MAX_FAILURE_MS);
    expect((await t.get('/readyz/etcd')).status).to.equal(500);
  });

  it('/livez?exclude=etcd still answers 200', async () => {
    const res = await t.get('/livez?exclude=etcd');
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.equal('ok');
  });

  it('the server keeps serving: no crash, no unhandled rejection', async () => {
    const res = await t.get('/version');
    expect(res.status).to.equal(200);
    expect(uncaught).to.deep.equal([]);
  });
});
