import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeconfigClient, KubeconfigClientConfig, parseKubeconfig, readKubeconfig } from '../../../lib/authn/kubeconfig-client';
import { TokenWebhook, startTokenWebhook } from '../../helpers/token-webhook';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const SECRET = 'webhook-secret-token-123';

describe('kubeconfig-client', () => {
  let hook: TokenWebhook;
  let dir: string;
  let client: { certPem: string; keyPem: string };

  before(async () => {
    hook = await startTokenWebhook({ requireClientCert: true });
    client = hook.clientCertificate('orch-apiserver');
    dir = mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  });
  after(async () => {
    await hook.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Parses `doc` as if read from `<dir>/<sub>/config`. */
  const parse = (doc: unknown, sub = '.'): KubeconfigClientConfig => parseKubeconfig(JSON.stringify(doc), path.join(dir, sub, 'config'));
  const parseError = (doc: unknown): string => {
    try {
      parse(doc);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('parseKubeconfig did not throw');
  };
  const cluster = (name: string, c: Record<string, unknown>) => ({ name, cluster: c });
  const user = (name: string, u: Record<string, unknown>) => ({ name, user: u });
  const context = (name: string, c: string, u?: string) => ({ name, context: u ? { cluster: c, user: u } : { cluster: c } });

  describe('parseKubeconfig: which cluster and user', () => {
    const two = {
      clusters: [cluster('a', { server: 'https://a.example/review' }), cluster('b', { server: 'https://b.example/' })],
      users: [user('ua', { token: 'ta' }), user('ub', { token: 'tb' })],
      contexts: [context('ca', 'a', 'ua'), context('cb', 'b', 'ub')],
    };

    it('takes current-context among several', () => {
      const c = parse({ ...two, 'current-context': 'cb' });
      expect(c.server.href).to.equal('https://b.example/');
      expect(c.credential).to.deep.equal({ token: 'tb' });
    });

    it('takes the only context when current-context is unset', () => {
      const c = parse({ clusters: two.clusters, users: two.users, contexts: [context('only', 'a', 'ua')] });
      expect(c.server.href).to.equal('https://a.example/review');
      expect(c.credential).to.deep.equal({ token: 'ta' });
    });

    it('takes the one cluster and the one user of a file without contexts', () => {
      const c = parse({ clusters: [two.clusters[0]], users: [two.users[1]] });
      expect(c.server.href).to.equal('https://a.example/review');
      expect(c.credential).to.deep.equal({ token: 'tb' });
    });

    it('takes the one cluster with no user at all', () => {
      const c = parse({ clusters: [two.clusters[0]] });
      expect(c.credential).to.equal(undefined);
      expect(c.insecureSkipTlsVerify).to.equal(false);
    });

    it('refuses a choice it cannot make', () => {
      expect(parseError(two)).to.match(/no current-context/);
      expect(parseError({ clusters: two.clusters, users: [two.users[0]] })).to.match(/no current-context/);
      expect(parseError({ ...two, 'current-context': 'nope' })).to.equal('current-context "nope" is not in contexts');
      expect(parseError({ ...two, contexts: [context('x', 'missing', 'ua')] })).to.equal('context "x": cluster "missing" is not in clusters');
      expect(parseError({ ...two, contexts: [context('x', 'a', 'nobody')] })).to.equal('context "x": user "nobody" is not in users');
      expect(parseError({ clusters: [two.clusters[0], two.clusters[0]] })).to.equal('duplicate name "a" in clusters');
      expect(parseError({})).to.match(/no current-context/);
      expect(parseError('just text')).to.equal('not a kubeconfig (no top-level object)');
    });

    it('reads YAML as well as JSON', () => {
      const yaml = 'clusters:\n- name: a\n  cluster:\n    server: https://yaml.example:8443/tr\nusers:\n- name: u\n  user:\n    token: t\n';
      const c = parseKubeconfig(yaml, path.join(dir, 'config'));
      expect(c.server.href).to.equal('https://yaml.example:8443/tr');
      expect(() => parseKubeconfig('', 'x')).to.throw('not a kubeconfig (no top-level object)');
      expect(() => parseKubeconfig('clusters: [a: b: c', 'x')).to.throw(/^not YAML or JSON/);
    });
  });

  describe('parseKubeconfig: the cluster', () => {
    it('needs an https server without credentials in it', () => {
      expect(parseError({ clusters: [cluster('a', {})] })).to.equal('cluster "a": no server');
      expect(parseError({ clusters: [cluster('a', { server: 'http://a.example' })] })).to.equal('cluster "a": server must be an https URL');
      expect(parseError({ clusters: [cluster('a', { server: 'not a url' })] })).to.equal('cluster "a": server "not a url" is not a URL');
      expect(parseError({ clusters: [cluster('a', { server: 'https://u:p@a.example' })] })).to.match(/must not hold credentials/);
      expect(parseError({ clusters: [cluster('a', { server: 'https://a.example', 'proxy-url': 'http://p' })] })).to.equal('cluster "a": proxy-url is not supported');
    });

    it('reads certificate-authority-data as base64 PEM', () => {
      const c = parse({ clusters: [cluster('a', { server: 'https://a.example', 'certificate-authority-data': b64(hook.caPem), 'tls-server-name': 'hook.local' })] });
      expect(c.ca).to.equal(hook.caPem.trim() + '\n');
      expect(c.servername).to.equal('hook.local');
    });

    it('reads certificate-authority relative to the kubeconfig directory', () => {
      mkdirSync(path.join(dir, 'sub', 'certs'), { recursive: true });
      writeFileSync(path.join(dir, 'sub', 'certs', 'ca.pem'), hook.caPem);
      const c = parse({ clusters: [cluster('a', { server: 'https://a.example', 'certificate-authority': 'certs/ca.pem' })] }, 'sub');
      expect(c.ca).to.equal(hook.caPem.trim() + '\n');
      expect(parseError({ clusters: [cluster('a', { server: 'https://a.example', 'certificate-authority': 'certs/ca.pem' })] }))
        .to.equal(`cluster "a": certificate-authority ${path.join(dir, 'certs', 'ca.pem')}: ENOENT`);
    });

    it('refuses contradictions and bad data as client-go does', () => {
      const base = { server: 'https://a.example', 'certificate-authority-data': b64(hook.caPem) };
      expect(parseError({ clusters: [cluster('a', { ...base, 'certificate-authority': '/x' })] }))
        .to.equal('cluster "a": certificate-authority-data and certificate-authority are both specified');
      expect(parseError({ clusters: [cluster('a', { ...base, 'insecure-skip-tls-verify': true })] }))
        .to.equal('cluster "a": a certificate authority and insecure-skip-tls-verify cannot both be set');
      expect(parseError({ clusters: [cluster('a', { server: 'https://a.example', 'certificate-authority-data': 'not base64!' })] }))
        .to.equal('cluster "a": certificate-authority-data is not base64');
      expect(parseError({ clusters: [cluster('a', { server: 'https://a.example', 'certificate-authority-data': b64('no pem here') })] }))
        .to.equal('cluster "a": certificate authority: no PEM certificate found');
      expect(parse({ clusters: [cluster('a', { server: 'https://a.example', 'insecure-skip-tls-verify': true })] }).insecureSkipTlsVerify).to.equal(true);
    });
  });

  describe('parseKubeconfig: the user', () => {
    const withUser = (u: Record<string, unknown>) => ({ clusters: [cluster('a', { server: 'https://a.example' })], users: [user('u', u)] });

    it('reads client-certificate-data and client-key-data', () => {
      const c = parse(withUser({ 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) }));
      expect(c.cert).to.equal(client.certPem);
      expect(c.key).to.equal(client.keyPem);
    });

    it('reads client-certificate, client-key and tokenFile relative to the kubeconfig directory', () => {
      mkdirSync(path.join(dir, 'rel', 'creds'), { recursive: true });
      writeFileSync(path.join(dir, 'rel', 'creds', 'c.pem'), client.certPem);
      writeFileSync(path.join(dir, 'rel', 'creds', 'k.pem'), client.keyPem);
      writeFileSync(path.join(dir, 'rel', 'creds', 'token'), `  ${SECRET}\n`);
      const c = parse(withUser({ 'client-certificate': 'creds/c.pem', 'client-key': 'creds/k.pem', tokenFile: 'creds/token' }), 'rel');
      expect(c.cert).to.equal(client.certPem);
      expect(c.key).to.equal(client.keyPem);
      expect(c.credential).to.deep.equal({ tokenFile: path.join(dir, 'rel', 'creds', 'token'), token: SECRET });
    });

    it('reads username and password', () => {
      expect(parse(withUser({ username: 'hook', password: 'pw' })).credential).to.deep.equal({ username: 'hook', password: 'pw' });
    });

    it('refuses incomplete, mismatched or contradictory credentials without echoing them', () => {
      const other = hook.clientCertificate('someone-else');
      const messages = [
        parseError(withUser({ 'client-certificate-data': b64(client.certPem) })),
        parseError(withUser({ 'client-key-data': b64(client.keyPem) })),
        parseError(withUser({ 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(other.keyPem) })),
        parseError(withUser({ 'client-certificate-data': b64(client.certPem), 'client-certificate': '/x', 'client-key-data': b64(client.keyPem) })),
        parseError(withUser({ token: SECRET, username: 'u', password: SECRET })),
        parseError(withUser({ exec: { command: 'x' } })),
        parseError(withUser({ token: 42 })),
      ];
      expect(messages[0]).to.equal('user "u": client-key-data or client-key must be specified with a client certificate');
      expect(messages[1]).to.equal('user "u": client-certificate-data or client-certificate must be specified with a client key');
      expect(messages[2]).to.match(/^user "u": client certificate and key do not make a pair/);
      expect(messages[3]).to.equal('user "u": client-certificate-data and client-certificate are both specified');
      expect(messages[4]).to.equal('user "u": more than one authentication method (token, basicAuth); only one is allowed');
      expect(messages[5]).to.equal('user "u": exec is not supported for webhooks');
      expect(messages[6]).to.equal('user "u": token must be a string');
      for (const m of messages) {
        expect(m).not.to.include(SECRET);
        expect(m).not.to.include('PRIVATE KEY');
      }
    });

    it('refuses an empty tokenFile', () => {
      writeFileSync(path.join(dir, 'empty-token'), '\n');
      expect(parseError(withUser({ tokenFile: 'empty-token' }))).to.equal(`user "u": tokenFile ${path.join(dir, 'empty-token')} is empty`);
    });
  });

  describe('readKubeconfig', () => {
    it('names the flag and the file on one line', () => {
      const missing = path.join(dir, 'missing.yaml');
      expect(() => readKubeconfig(missing, '--some-flag')).to.throw(`--some-flag ${missing}: ENOENT`);
      const bad = path.join(dir, 'bad.yaml');
      writeFileSync(bad, JSON.stringify({ clusters: [cluster('a', { server: 'http://x' })] }));
      expect(() => readKubeconfig(bad, '--some-flag')).to.throw(`--some-flag ${bad}: cluster "a": server must be an https URL`);
    });
  });

  describe('KubeconfigClient', () => {
    const config = (u: Record<string, unknown>, c: Record<string, unknown> = {}): KubeconfigClientConfig => parse({
      clusters: [cluster('hook', { server: hook.url, 'certificate-authority-data': b64(hook.caPem), ...c })],
      users: [user('apiserver', u)],
    });
    const certUser = () => ({ 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) });

    it('POSTs JSON to the exact URL, trusting the CA, presenting the client certificate and the token', async () => {
      hook.requests.length = 0;
      hook.reply = () => ({ status: 201, json: { ok: true } });
      const c = new KubeconfigClient(config({ ...certUser(), token: SECRET }));
      try {
        const reply = await c.post(Buffer.from('{"a":1}'), 5000);
        expect(reply.status).to.equal(201);
        expect(JSON.parse(reply.body.toString())).to.deep.equal({ ok: true });
        const [req] = hook.requests;
        expect(req.method).to.equal('POST');
        expect(req.url).to.equal('/authenticate');
        expect(req.headers['content-type']).to.equal('application/json');
        expect(req.headers.authorization).to.equal(`Bearer ${SECRET}`);
        expect(req.clientCn).to.equal('orch-apiserver');
        expect(req.text).to.equal('{"a":1}');
      } finally {
        c.close();
      }
    });

    it('sends basic credentials', async () => {
      hook.requests.length = 0;
      hook.reply = () => ({ json: {} });
      const c = new KubeconfigClient(config({ ...certUser(), username: 'hook', password: 'pw' }));
      try {
        await c.post(Buffer.from('{}'), 5000);
        expect(hook.requests[0].headers.authorization).to.equal(`Basic ${b64('hook:pw')}`);
      } finally {
        c.close();
      }
    });

    it('fails against a server its CA did not sign, and without the client certificate the server requires', async () => {
      const stranger = await startTokenWebhook();
      const wrongCa = new KubeconfigClient(parse({ clusters: [cluster('x', { server: stranger.url, 'certificate-authority-data': b64(hook.caPem) })] }));
      const noCert = new KubeconfigClient(config({}));
      try {
        await wrongCa.post(Buffer.from('{}'), 5000).then(() => { throw new Error('no TLS error'); }, (err: Error) => expect(err.message).to.match(/certificate/));
        await noCert.post(Buffer.from('{}'), 5000).then(() => { throw new Error('no TLS error'); }, (err: Error) => expect(err.message).to.match(/certificate|socket hang up|ECONNRESET/i));
      } finally {
        wrongCa.close();
        noCert.close();
        await stranger.stop();
      }
    });

    it('gives up on a server that does not answer in time with ETIMEDOUT', async () => {
      hook.reply = () => 'hang';
      const c = new KubeconfigClient(config(certUser()));
      const started = Date.now();
      try {
        const err = await c.post(Buffer.from('{}'), 300).then(() => undefined, (e: NodeJS.ErrnoException) => e);
        expect(err?.code).to.equal('ETIMEDOUT');
        expect(Date.now() - started).to.be.within(250, 3000);
      } finally {
        c.close();
      }
    });
  });
});
