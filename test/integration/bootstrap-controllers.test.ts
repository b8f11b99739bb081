/**
 * The bootstrap token controllers over HTTPS on a real etcd: `tokencleaner` deletes expired
 * bootstrap token Secrets (at their expiration), `bootstrapsigner` keeps `cluster-info` in the
 * public namespace with the kubeconfig and one detached JWS per signing token. Signatures are
 * checked by the spec's steps (orch flavor: HS256 keyed with the full token) and as kubeadm
 * checks them (kubernetes flavor: recomputed with the token secret and compared). Both
 * controllers are off unless --controllers names them.
 */
import { expect } from 'chai';
import { CompactSign, compactVerify } from 'jose';
import { parse as parseYaml } from 'yaml';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { verifyDetached } from '../../lib/controllers/cluster-info-jws';
import { BootstrapToken, newBootstrapToken } from '../helpers/bootstrap-token';
import { detachedJwsValidForKubeadm as validForKubeadm } from '../helpers/kubeadm-join';

type Token = BootstrapToken;
const newToken = newBootstrapToken;

/** RFC 3339 in whole seconds, `ms` from now (rounded up to the next second). */
const rfc3339In = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Helpers bound to one server and flavor. */
function fixture(get: () => TestServer, flavor: 'orch' | 'kubernetes') {
  const domain = flavor === 'orch' ? 'orch.io' : 'kubernetes.io';
  const systemNs = flavor === 'orch' ? 'orch-system' : 'kube-system';
  const publicNs = flavor === 'orch' ? 'orch-public' : 'kube-public';
  const secrets = (name = '') => `/api/v1/namespaces/${systemNs}/secrets${name ? `/${name}` : ''}`;
  const clusterInfo = `/api/v1/namespaces/${publicNs}/configmaps/cluster-info`;
  return {
    secrets, clusterInfo,
    async createToken(tok: Token, data: Record<string, string>): Promise<void> {
      const res = await get().post(secrets(), {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: tok.name }, type: `bootstrap.${domain}/token`,
        stringData: { 'token-id': tok.id, 'token-secret': tok.secret, ...data },
      });
      expect(res.status, res.text).to.equal(201);
    },
    async clusterInfoData(): Promise<Record<string, string>> {
      const res = await eventually(async () => { const r = await get().get(clusterInfo); return r.status === 200 && r; });
      return res.body.data ?? {};
    },
    /** cluster-info's data once `check` accepts it. */
    async clusterInfoWhen(check: (data: Record<string, string>) => boolean, timeoutMs = 15_000): Promise<Record<string, string>> {
      return eventually(async () => {
        const r = await get().get(clusterInfo);
        return r.status === 200 && check(r.body.data ?? {}) && r.body.data;
      }, timeoutMs);
    },
  };
}

/** The spec's steps, done here without the server's code: payload between the dots, HS256 enforced. */
async function verifiedBySpec(detached: string, kubeconfig: string, key: string): Promise<boolean> {
  const [header, empty, signature] = detached.split('.');
  if (empty !== '') return false;
  const payload = Buffer.from(kubeconfig, 'utf8').toString('base64url');
  try {
    await compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(key), { algorithms: ['HS256'] });
    return true;
  } catch {
    return false;
  }
}

describe('bootstrap token controllers (orch flavor, --controllers=*,tokencleaner,bootstrapsigner)', function () {
  this.timeout(120_000);
  let t: TestServer;
  const f = fixture(() => t, 'orch');

  before(async () => {
    t = await startTestServer(['--controllers=*,tokencleaner,bootstrapsigner']);
  });
  after(async () => { await t?.stop(); });

  it('tokencleaner deletes an expired token Secret and leaves valid ones', async () => {
    const expired = newToken();
    const later = newToken();
    const forever = newToken();
    await f.createToken(later, { expiration: rfc3339In(3600_000) });
    await f.createToken(forever, {});
    await f.createToken(expired, { expiration: '2020-01-01T00:00:00Z' });
    await eventually(async () => (await t.get(f.secrets(expired.name))).status === 404);
    expect((await t.get(f.secrets(later.name))).status).to.equal(200);
    expect((await t.get(f.secrets(forever.name))).status).to.equal(200);
  });

  it('tokencleaner deletes a token when its expiration arrives, not before', async () => {
    const tok = newToken();
    const expiration = rfc3339In(3000);
    await f.createToken(tok, { expiration });
    expect((await t.get(f.secrets(tok.name))).status).to.equal(200);
    // No other Secret changes meanwhile: only the cleaner's own timer can remove it.
    await eventually(async () => (await t.get(f.secrets(tok.name))).status === 404, 20_000);
    expect(Date.now()).to.be.at.least(Date.parse(expiration));
  });

  it('bootstrapsigner creates cluster-info with a kubeconfig of the CA and the server URL', async () => {
    const data = await f.clusterInfoData();
    const config = parseYaml(data.kubeconfig);
    expect(config.kind).to.equal('Config');
    expect(config.clusters).to.have.length(1);
    expect(config.clusters[0].cluster.server).to.equal(t.server.url);
    expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).to.equal(t.server.pki.caCertPem);
  });

  it('signs cluster-info per signing token, verifiable by the spec steps with the full token', async () => {
    const signing = newToken();
    const notSigning = newToken();
    await f.createToken(notSigning, { 'usage-bootstrap-authentication': 'true' });
    await f.createToken(signing, { 'usage-bootstrap-signing': 'true', expiration: rfc3339In(3600_000) });
    const data = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${signing.id}`]);
    const jws = data[`jws-kubeconfig-${signing.id}`];
    expect(jws).to.match(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString())).to.deep.equal({ alg: 'HS256', kid: signing.id });
    expect(await verifiedBySpec(jws, data.kubeconfig, signing.token)).to.equal(true);
    expect(await verifyDetached(jws, data.kubeconfig, new TextEncoder().encode(signing.token))).to.equal(true);
    // The spec's key is the full token: the secret alone does not verify in this flavor.
    expect(await verifiedBySpec(jws, data.kubeconfig, signing.secret)).to.equal(false);
    expect(data).not.to.have.property(`jws-kubeconfig-${notSigning.id}`);
  });

  it('a tampered kubeconfig fails verification, and a non-HS256 header is rejected', async () => {
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true' });
    const data = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`]);
    const jws = data[`jws-kubeconfig-${tok.id}`];
    const tampered = data.kubeconfig.replace(t.server.url, 'https://attacker.example:6443');
    expect(tampered).not.to.equal(data.kubeconfig);
    expect(await verifiedBySpec(jws, tampered, tok.token)).to.equal(false);
    expect(await verifyDetached(jws, tampered, new TextEncoder().encode(tok.token))).to.equal(false);

    // A correct HS512 signature with the right key is still refused: HS256 is enforced.
    const key = new TextEncoder().encode(tok.token);
    const hs512 = await new CompactSign(new TextEncoder().encode(data.kubeconfig)).setProtectedHeader({ alg: 'HS512', kid: tok.id }).sign(key);
    await compactVerify(hs512, key, { algorithms: ['HS512'] }); // genuinely valid as HS512
    const [h, , s] = hs512.split('.');
    expect(await verifyDetached(`${h}..${s}`, data.kubeconfig, key)).to.equal(false);
    expect(await verifiedBySpec(`${h}..${s}`, data.kubeconfig, tok.token)).to.equal(false);
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: tok.id })).toString('base64url');
    expect(await verifyDetached(`${none}..`, data.kubeconfig, key)).to.equal(false);
  });

  it('removes the signature of a deleted token', async () => {
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true' });
    await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`]);
    expect((await t.del(f.secrets(tok.name))).status).to.equal(200);
    const data = await f.clusterInfoWhen((d) => !d[`jws-kubeconfig-${tok.id}`]);
    expect(data.kubeconfig).to.be.a('string');
  });

  it('signs again when the kubeconfig changes, and puts a deleted cluster-info back', async () => {
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true' });
    const before = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`]);
    const current = (await t.get(f.clusterInfo)).body;
    const edited = before.kubeconfig.replace(t.server.url, 'https://lb.example:6443');
    const res = await t.put(f.clusterInfo, { ...current, data: { ...current.data, kubeconfig: edited } });
    expect(res.status, res.text).to.equal(200);
    const after = await f.clusterInfoWhen((d) => d.kubeconfig === edited && d[`jws-kubeconfig-${tok.id}`] !== before[`jws-kubeconfig-${tok.id}`]);
    expect(await verifiedBySpec(after[`jws-kubeconfig-${tok.id}`], edited, tok.token)).to.equal(true);

    expect((await t.del(f.clusterInfo)).status).to.equal(200);
    const back = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`] && d.kubeconfig.includes(t.server.url));
    expect(await verifiedBySpec(back[`jws-kubeconfig-${tok.id}`], back.kubeconfig, tok.token)).to.equal(true);
  });
});

describe('bootstrapsigner (kubernetes flavor, --controllers=*,bootstrapsigner)', function () {
  this.timeout(120_000);
  let t: TestServer;
  const f = fixture(() => t, 'kubernetes');

  before(async () => {
    t = await startTestServer(['--flavor=kubernetes', '--controllers=*,bootstrapsigner']);
  });
  after(async () => { await t?.stop(); });

  it('signs with the token secret, as kubeadm verifies it', async () => {
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true' });
    const data = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`]);
    const jws = data[`jws-kubeconfig-${tok.id}`];
    expect(validForKubeadm(jws, data.kubeconfig, tok.id, tok.secret)).to.equal(true);
    expect(await verifiedBySpec(jws, data.kubeconfig, tok.secret)).to.equal(true);
    expect(validForKubeadm(jws, data.kubeconfig.replace(t.server.url, 'https://other:6443'), tok.id, tok.secret)).to.equal(false);
    expect(parseYaml(data.kubeconfig).clusters[0].cluster.server).to.equal(t.server.url);
  });

  it('removes the signature when the token expires, though tokencleaner (off) leaves its Secret', async () => {
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true', expiration: rfc3339In(3000) });
    await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${tok.id}`]);
    await f.clusterInfoWhen((d) => !d[`jws-kubeconfig-${tok.id}`], 20_000);
    // tokencleaner is not named: the expired Secret stays.
    expect((await t.get(f.secrets(tok.name))).status).to.equal(200);
  });

  it('an expired token gets no signature', async () => {
    const expired = newToken();
    const fresh = newToken();
    await f.createToken(expired, { 'usage-bootstrap-signing': 'true', expiration: '2020-01-01T00:00:00Z' });
    await f.createToken(fresh, { 'usage-bootstrap-signing': 'true' });
    const data = await f.clusterInfoWhen((d) => !!d[`jws-kubeconfig-${fresh.id}`]);
    expect(data).not.to.have.property(`jws-kubeconfig-${expired.id}`);
  });
});

describe('bootstrap token controllers are off by default', function () {
  this.timeout(120_000);
  let t: TestServer;
  const f = fixture(() => t, 'orch');

  before(async () => {
    t = await startTestServer([]);
  });
  after(async () => { await t?.stop(); });

  it('neither deletes expired tokens nor publishes cluster-info; csrcleaner is on', async () => {
    expect(t.server.controllers.names()).to.include('csrcleaner');
    expect(t.server.controllers.names()).not.to.include('tokencleaner');
    expect(t.server.controllers.names()).not.to.include('bootstrapsigner');
    const tok = newToken();
    await f.createToken(tok, { 'usage-bootstrap-signing': 'true', expiration: '2020-01-01T00:00:00Z' });
    // When on, both act within milliseconds of the write (see the suites above).
    await sleep(2000);
    expect((await t.get(f.secrets(tok.name))).status).to.equal(200);
    expect((await t.get(f.clusterInfo)).status).to.equal(404);
  });
});
