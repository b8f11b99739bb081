/**
 * EventRateLimit over HTTPS against a real etcd, configured through
 * --admission-control-config-file: a Server limit (qps 1, burst 3) refuses the 4th event of a
 * burst with Kubernetes' 429 and stores nothing; Namespace buckets are independent of each other;
 * User buckets follow the requesting user; other kinds are not counted; a bad configuration stops
 * the start with Kubernetes' message.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';

type Body = Record<string, any>;

/** An AdmissionConfiguration file whose EventRateLimit configuration has `limits`. */
function configFile(limits: unknown[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'event-rate-limit-'));
  const file = path.join(dir, 'admission.yaml');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration',
    plugins: [{ name: 'EventRateLimit', configuration: { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits } }],
  }));
  return file;
}

const flags = (limits: unknown[]) => ['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${configFile(limits)}`];

const event = (ns: string, name: string): Body => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', namespace: ns, name: 'p' }, reason: 'R', message: 'm', type: 'Normal',
});

async function namespaces(t: TestServer, ...names: string[]): Promise<void> {
  for (const name of names) expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).to.equal(201);
}

function expectLimited(res: HttpResponse, type: string, key: string): void {
  expect(res.status, res.text).to.equal(429);
  expect(res.body).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: `Too many requests: limit reached on type ${type} for key ${key}` });
  expect(res.headers['retry-after']).to.equal(undefined);
}

describe('EventRateLimit admission', function () {
  this.timeout(120_000);

  describe('a Server limit (qps 1, burst 3) and a Namespace limit (qps 1, burst 2)', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(flags([{ type: 'Server', qps: 1, burst: 3 }, { type: 'Namespace', qps: 1, burst: 2 }]));
      await namespaces(t, 'rl-a', 'rl-b');
    });
    after(async () => { await t?.stop(); });

    it('refuses the 4th create of a burst with 429 and stores nothing; other kinds pass; the buckets refill', async () => {
      // Namespace buckets of 2: a, a (namespace a empty), b — three server tokens used.
      expect((await t.post('/api/v1/namespaces/rl-a/events', event('rl-a', 'e1'))).status).to.equal(201);
      expect((await t.post('/api/v1/namespaces/rl-a/events', event('rl-a', 'e2'))).status).to.equal(201);
      expect((await t.post('/api/v1/namespaces/rl-b/events', event('rl-b', 'e3'))).status).to.equal(201);
      const fourth = await t.post('/api/v1/namespaces/rl-b/events', event('rl-b', 'e4'));
      expectLimited(fourth, 'Server', '');
      expect((await t.get('/api/v1/namespaces/rl-b/events/e4')).status).to.equal(404);
      // Not an event: not counted.
      expect((await t.post('/api/v1/namespaces/rl-b/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } })).status).to.equal(201);
      await new Promise((r) => setTimeout(r, 1_100));
      // A second later each bucket has a token again.
      expect((await t.post('/api/v1/namespaces/rl-b/events', event('rl-b', 'e5'))).status).to.equal(201);
    });
  });

  describe('a Namespace limit alone (qps 1, burst 1)', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(flags([{ type: 'Namespace', qps: 1, burst: 1, cacheSize: 10 }]));
      await namespaces(t, 'ns-a', 'ns-b');
    });
    after(async () => { await t?.stop(); });

    it('keeps each namespace\'s bucket apart', async () => {
      expect((await t.post('/api/v1/namespaces/ns-a/events', event('ns-a', 'a1'))).status).to.equal(201);
      expect((await t.post('/api/v1/namespaces/ns-b/events', event('ns-b', 'b1'))).status).to.equal(201);
      expectLimited(await t.post('/api/v1/namespaces/ns-a/events', event('ns-a', 'a2')), 'Namespace', 'ns-a');
      expectLimited(await t.post('/api/v1/namespaces/ns-b/events', event('ns-b', 'b2')), 'Namespace', 'ns-b');
    });
  });

  describe('a User limit (qps 1, burst 1)', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(flags([{ type: 'User', qps: 1, burst: 1 }]));
      await namespaces(t, 'users');
    });
    after(async () => { await t?.stop(); });

    it('keeps each user\'s bucket apart', async () => {
      const alice = t.identity('alice', ['system:masters']);
      const bob = t.identity('bob', ['system:masters']);
      expect((await t.post('/api/v1/namespaces/users/events', event('users', 'a1'), { identity: alice })).status).to.equal(201);
      expect((await t.post('/api/v1/namespaces/users/events', event('users', 'b1'), { identity: bob })).status).to.equal(201);
      expectLimited(await t.post('/api/v1/namespaces/users/events', event('users', 'a2'), { identity: alice }), 'User', 'alice');
      expect((await t.get('/api/v1/namespaces/users/events/a2')).status).to.equal(404);
    });
  });

  it('stops the start on a bad configuration, with Kubernetes\' message', async () => {
    let message = '';
    try {
      const t = await startTestServer(flags([{ type: 'Server', qps: 1, burst: 0 }]));
      await t.stop();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.include('couldn\'t init admission plugin "EventRateLimit": limits[0].burst: Invalid value: 0: must be positive');
  });
});
