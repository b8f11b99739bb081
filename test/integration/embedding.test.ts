/**
 * The embedding API (lib/server/embed.ts, the package's entry): servers in one process beside
 * each other, on etcds of their own or sharing one, and a stop() that leaves nothing behind.
 */
import { existsSync } from 'node:fs';
import https from 'node:https';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { ApiServer, EtcdHandle, startApiServer, startThrowawayEtcd } from '../../lib';

interface Reply { status: number; body: any }

function request(api: ApiServer, method: string, urlPath: string, body?: unknown, identity = api.admin): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${api.url}${urlPath}`, {
      method, ca: api.caCertPem, cert: identity.certPem, key: identity.keyPem, headers: { 'content-type': 'application/json' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => { text += c; }).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
const createIn = (api: ApiServer, name: string) => request(api, 'POST', '/api/v1/namespaces/default/configmaps', configMap(name));
const names = async (api: ApiServer) => (await request(api, 'GET', '/api/v1/namespaces/default/configmaps')).body.items.map((i: any) => i.metadata.name);

/** How many keys etcd holds under `prefix/` (its JSON gateway). */
async function keysUnder(endpoint: string, prefix: string): Promise<number> {
  const start = Buffer.from(`${prefix}/`);
  const end = Buffer.from(start);
  end[end.length - 1]++;
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST', body: JSON.stringify({ key: start.toString('base64'), range_end: end.toString('base64'), count_only: true }),
  });
  return Number(((await res.json()) as { count?: string }).count ?? 0);
}

function alive(pid: number | undefined): boolean {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedding API: startApiServer', function () {
  this.timeout(60_000);

  describe('two servers with etcds of their own, side by side', () => {
    let a: ApiServer;
    let b: ApiServer;
    before(async () => { [a, b] = await Promise.all([startApiServer({ flavor: 'kubernetes' }), startApiServer()]); });
    after(async () => { await Promise.all([a?.stop(), b?.stop()]); });

    it('gives each its own port, data dir and etcd', () => {
      expect(a.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(a.url).to.not.equal(b.url);
      expect(a.dataDir).to.not.equal(b.dataDir);
      expect(a.etcd.endpoint).to.not.equal(b.etcd.endpoint);
      expect(a.etcdPrefix).to.equal('/registry');
    });

    it('keeps their objects apart', async () => {
      expect((await createIn(a, 'only-in-a')).status).to.equal(201);
      expect(await names(a)).to.include('only-in-a');
      expect(await names(b)).to.not.include('only-in-a');
    });

    it('serves the flavor asked for', async () => {
      const ns = async (api: ApiServer) => (await request(api, 'GET', '/api/v1/namespaces')).body.items.map((i: any) => i.metadata.name);
      expect(await ns(a)).to.include('kube-system');
      expect(await ns(b)).to.not.include('kube-system');
    });

    it('returns a kubeconfig that points at the server with the admin identity', () => {
      const config = parseYaml(a.kubeconfig);
      expect(config.clusters[0].cluster.server).to.equal(a.url);
      expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).to.equal(a.caCertPem);
      expect(Buffer.from(config.users[0].user['client-certificate-data'], 'base64').toString()).to.equal(a.admin.certPem);
      expect(existsSync(a.kubeconfigPath)).to.equal(true);
    });

    it('signs identities of other users', async () => {
      const alice = a.identity('alice', ['team']);
      const review = await request(a, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, alice);
      expect(review.body.status.userInfo).to.include({ username: 'alice' });
      expect(review.body.status.userInfo.groups).to.include('team');
    });
  });

  it('stop() ends the etcd it started and removes the temp dirs', async () => {
    const api = await startApiServer({ flags: ['--log-level=error'] });
    const { pid, dataDir: etcdDir } = api.etcd;
    expect(alive(pid)).to.equal(true);
    await api.stop();
    await api.stop();
    expect(alive(pid)).to.equal(false);
    expect(existsSync(etcdDir!)).to.equal(false);
    expect(existsSync(api.dataDir)).to.equal(false);
  });

  describe('servers sharing a given etcd', () => {
    let etcd: EtcdHandle;
    before(async () => { etcd = await startThrowawayEtcd(); });
    after(async () => { await etcd?.stop(); });

    it('keep their objects under prefixes of their own, deleted by stop(); the etcd stays up', async () => {
      const [a, b] = await Promise.all([startApiServer({ etcd }), startApiServer({ etcd: etcd.endpoint })]);
      try {
        expect(a.etcdPrefix).to.not.equal(b.etcdPrefix);
        expect(a.etcd.endpoint).to.equal(etcd.endpoint);
        expect((await createIn(a, 'in-a')).status).to.equal(201);
        expect(await names(b)).to.not.include('in-a');
        expect(await keysUnder(etcd.endpoint, a.etcdPrefix)).to.be.greaterThan(0);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
      expect(await keysUnder(etcd.endpoint, a.etcdPrefix)).to.equal(0);
      expect(await keysUnder(etcd.endpoint, b.etcdPrefix)).to.equal(0);
      expect(alive(etcd.pid)).to.equal(true);
    });

    it('with an etcdPrefix given, keeps the objects for a restart', async () => {
      const first = await startApiServer({ etcd, etcdPrefix: '/kept' });
      expect((await createIn(first, 'survives')).status).to.equal(201);
      await first.stop();
      const second = await startApiServer({ etcd, etcdPrefix: '/kept' });
      try {
        expect(await names(second)).to.include('survives');
      } finally {
        await second.stop();
      }
    });
  });

  it('a start that fails leaves nothing behind and says why', async () => {
    const err = await startApiServer({ flags: ['--no-such-flag'] }).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.match(/no-such-flag/);
  });
});
