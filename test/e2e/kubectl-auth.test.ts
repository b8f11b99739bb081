/**
 * Authentication as stock kubectl (1.32) exercises it against the real server process:
 * ServiceAccounts, `create token` (TokenRequest), `auth whoami` (SelfSubjectReview) with the admin
 * certificate, a service-account token, a static token (--token-auth-file), a bootstrap token and
 * an exec credential plugin; impersonation with --as/--as-group, and its refusal for a user
 * outside system:masters.
 *
 * The server runs with --flavor=kubernetes: kubectl's `create token` and `auth whoami` send
 * `authentication.k8s.io/v1` bodies (the orch flavor answers them with a group mismatch), and its
 * exec plugins speak `client.authentication.k8s.io`.
 *
 * Credentials other than the admin certificate go through a kubeconfig with the server and its CA
 * only: kubectl sends a client certificate and a bearer token together when both are configured,
 * and the certificate wins, as in kube-apiserver.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { expectKubectlFails, expectKubectlOk, useKubectlServer } from '../helpers/e2e-server';
import { Kubectl, kubectlFor, parseTable } from '../helpers/kubectl';
import { Pki, signClientCertificate, writeKubeconfig } from '../../lib/server/pki';

const SA_USER = 'system:serviceaccount:default:robot';
const SA_GROUPS = ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'];
const UNAUTHORIZED = 'error: You must be logged in to the server (Unauthorized)';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The claims of a JWT kubectl printed (no verification: the server's answers show validity). */
function jwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  const parts = token.trim().split('.');
  expect(parts, 'a JWT has three dot-separated parts').to.have.length(3);
  for (const p of parts) expect(p).to.match(BASE64URL);
  return JSON.parse(Buffer.from(parts[index], 'base64url').toString('utf8'));
}

/** `kubectl auth whoami`'s ATTRIBUTE/VALUE table as a map. */
function whoamiTable(stdout: string): Record<string, string> {
  const table = parseTable(stdout);
  expect(table.columns).to.deep.equal(['ATTRIBUTE', 'VALUE']);
  return Object.fromEntries(table.rows.map((r) => [r.ATTRIBUTE, r.VALUE]));
}

describe('kubectl authentication against the server process (kubernetes flavor)', function () {
  this.timeout(60_000);
  // The token file must exist when the server starts, so its path is fixed before the dir exists.
  const filesDir = path.join(os.tmpdir(), `orch-e2e-auth-files-${process.pid}-${randomBytes(4).toString('hex')}`);
  const tokenFile = path.join(filesDir, 'tokens.csv');
  const staticToken = randomBytes(24).toString('hex');
  before(() => {
    mkdirSync(filesDir, { mode: 0o700 });
    writeFileSync(tokenFile, `${staticToken},alice,alice-uid-7,"dev,qa"\n`, { mode: 0o600 });
  });
  const e2e = useKubectlServer('auth', ['--flavor=kubernetes', `--token-auth-file=${tokenFile}`, '--enable-bootstrap-token-auth']);
  const { ok, fails } = e2e;
  after(() => rmSync(filesDir, { recursive: true, force: true }));

  let server: string;
  let caPem: string;
  let robotUid: string;
  /** kubectl with a kubeconfig holding only the server and its CA: credentials come as flags. */
  let anonymousKubectl: Kubectl;

  /** A kubeconfig in the temp dir with the server, its CA and `user` (a kubeconfig user entry). */
  function kubeconfigWithUser(file: string, user: Record<string, unknown>): string {
    const p = path.join(e2e.dir, file);
    writeFileSync(p, stringifyYaml({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'orch', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
      users: [{ name: 'someone', user }],
      contexts: [{ name: 'orch', context: { cluster: 'orch', user: 'someone' } }],
      'current-context': 'orch',
    }), { mode: 0o600 });
    return p;
  }
  const kubectlWith = (kubeconfig: string): Kubectl => kubectlFor(kubeconfig, path.join(e2e.dir, 'kube-cache'));
  const withToken = (token: string, args: string[]) => anonymousKubectl([`--token=${token}`, ...args]);

  before(async () => {
    const admin = parseYaml(readFileSync(e2e.server.kubeconfigPath, 'utf8'));
    server = admin.clusters[0].cluster.server;
    caPem = readFileSync(path.join(e2e.dir, 'data', 'pki', 'ca.crt'), 'utf8');
    anonymousKubectl = kubectlWith(kubeconfigWithUser('token-only.kubeconfig', {}));
    await ok(['create', 'sa', 'robot']);
    robotUid = (await ok(['get', 'sa', 'robot', '-o', 'jsonpath={.metadata.uid}'])).stdout;
  });

  describe('ServiceAccounts and create token', () => {
    it('create sa prints the created account; get sa prints NAME SECRETS AGE; -o yaml the stored object', async () => {
      expect((await ok(['create', 'sa', 'builder'])).stdout.trim()).to.equal('serviceaccount/builder created');

      const table = parseTable((await ok(['get', 'sa'])).stdout);
      expect(table.columns).to.deep.equal(['NAME', 'SECRETS', 'AGE']);
      const rows = Object.fromEntries(table.rows.map((r) => [r.NAME, r]));
      expect(rows).to.include.keys('builder', 'robot');
      expect(rows.builder.SECRETS).to.equal('0');
      expect(rows.builder.AGE).to.match(/^\d+s$/);

      const sa = parseYaml((await ok(['get', 'sa', 'robot', '-o', 'yaml'])).stdout);
      expect(sa).to.include({ apiVersion: 'v1', kind: 'ServiceAccount' });
      expect(sa.metadata).to.include({ name: 'robot', namespace: 'default', uid: robotUid });
      expect(sa.metadata.resourceVersion).to.match(/^[1-9]\d*$/);
      expect(sa).to.not.have.property('secrets');
    });

    it('create token prints a signed JWT for the account, valid for an hour for the API audience', async () => {
      const { stdout } = await ok(['create', 'token', 'robot']);
      expect(stdout, 'the token alone, as kubectl prints it (no newline)').to.not.match(/\s/);
      expect(jwtPart(stdout, 0)).to.include({ alg: 'RS256' }).and.to.have.property('kid').that.is.a('string');
      const claims = jwtPart(stdout, 1);
      expect(claims).to.include({ sub: SA_USER, iss: 'https://kubernetes.default.svc.cluster.local' });
      expect(claims.aud).to.deep.equal(['https://kubernetes.default.svc.cluster.local']);
      expect(Number(claims.exp) - Number(claims.iat)).to.equal(3600);
      expect(Number(claims.iat)).to.be.within(Date.now() / 1000 - 60, Date.now() / 1000 + 60);
      expect(claims['kubernetes.io']).to.deep.equal({ namespace: 'default', serviceaccount: { name: 'robot', uid: robotUid } });
    });

    it('--duration and --audience set the lifetime and the audiences', async () => {
      const { stdout } = await ok(['create', 'token', 'robot', '--duration=20m', '--audience=a', '--audience=b']);
      const claims = jwtPart(stdout, 1);
      expect(Number(claims.exp) - Number(claims.iat)).to.equal(1200);
      expect(claims.aud).to.deep.equal(['a', 'b']);
    });

    it('a duration under 10 minutes and a missing account fail with the server\'s message', async () => {
      const short = await fails(['create', 'token', 'robot', '--duration=5m']);
      expect(short.stderr.trim()).to.equal('error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: '
        + 'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
      const missing = await fails(['create', 'token', 'ghost']);
      expect(missing.stderr.trim()).to.equal('error: failed to create token: serviceaccounts "ghost" not found');
    });
  });

  describe('auth whoami', () => {
    it('as the admin: orch-admin in system:masters, as a table and as JSON', async () => {
      expect(whoamiTable((await ok(['auth', 'whoami'])).stdout)).to.deep.equal({
        Username: 'orch-admin', Groups: '[system:masters system:authenticated]',
      });
      const review = JSON.parse((await ok(['auth', 'whoami', '-o', 'json'])).stdout);
      expect(review).to.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(review.status).to.deep.equal({ userInfo: { username: 'orch-admin', groups: ['system:masters', 'system:authenticated'] } });
    });

    it('with a service-account token only: the account, its uid, groups and the token\'s credential id', async () => {
      const token = (await ok(['create', 'token', 'robot'])).stdout.trim();
      const jti = jwtPart(token, 1).jti;
      const table = await withToken(token, ['auth', 'whoami']);
      expect(table.code, table.stderr).to.equal(0);
      expect(whoamiTable(table.stdout)).to.deep.equal({
        Username: SA_USER, UID: robotUid, Groups: `[${SA_GROUPS.join(' ')}]`,
        'Extra: authentication.kubernetes.io/credential-id': `[JTI=${jti}]`,
      });
      const json = await withToken(token, ['auth', 'whoami', '-o', 'json']);
      expect(JSON.parse(json.stdout).status.userInfo).to.deep.equal({
        username: SA_USER, uid: robotUid, groups: SA_GROUPS,
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
      });
      // What the account may do is RBAC's: nothing was bound to it, so listing namespaces is refused.
      const ns = await withToken(token, ['get', 'ns', '-o', 'name']);
      expect(ns.code).to.equal(1);
      expect(ns.stderr.trim()).to.equal(`Error from server (Forbidden): namespaces is forbidden: User "${SA_USER}" cannot list resource "namespaces" in API group "" at the cluster scope`);
    });

    it('a token beside the admin certificate: the certificate wins', async () => {
      const token = (await ok(['create', 'token', 'robot'])).stdout.trim();
      expect(whoamiTable((await ok([`--token=${token}`, 'auth', 'whoami'])).stdout).Username).to.equal('orch-admin');
      expect(whoamiTable((await ok(['--token=garbage', 'auth', 'whoami'])).stdout).Username).to.equal('orch-admin');
    });

    it('garbage, tampered, wrong-audience and orphaned tokens are Unauthorized', async () => {
      const token = (await ok(['create', 'token', 'robot'])).stdout.trim();
      // The claims re-encoded as another account's, the signature kept.
      const [header, , signature] = token.split('.');
      const forged = { ...jwtPart(token, 1), sub: 'system:serviceaccount:default:builder' };
      const tampered = [header, Buffer.from(JSON.stringify(forged)).toString('base64url'), signature].join('.');
      const otherAudience = (await ok(['create', 'token', 'robot', '--audience=elsewhere'])).stdout.trim();
      await ok(['create', 'sa', 'shortlived']);
      const orphaned = (await ok(['create', 'token', 'shortlived'])).stdout.trim();
      await ok(['delete', 'sa', 'shortlived']);

      for (const [what, bad] of Object.entries({ garbage: 'garbage', tampered, otherAudience, orphaned })) {
        const r = await withToken(bad, ['get', 'ns']);
        expect(r.code, `${what}: ${r.stdout}`).to.equal(1);
        expect(r.stderr.trim(), what).to.equal(UNAUTHORIZED);
      }
    });
  });

  describe('impersonation', () => {
    it('the admin acts as jane with --as and --as-group', async () => {
      const args = ['--as=jane', '--as-group=dev', '--as-group=ops', 'auth', 'whoami'];
      expect(whoamiTable((await ok(args)).stdout)).to.deep.equal({ Username: 'jane', Groups: '[dev ops system:authenticated]' });
      expect(JSON.parse((await ok([...args, '-o', 'json'])).stdout).status.userInfo)
        .to.deep.equal({ username: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
    });

    it('the admin acts as a service account, which gets the service-account groups', async () => {
      expect(whoamiTable((await ok([`--as=${SA_USER}`, 'auth', 'whoami'])).stdout))
        .to.deep.equal({ Username: SA_USER, Groups: `[${SA_GROUPS.join(' ')}]` });
    });

    it('bob (a client certificate outside system:masters) is himself, and may not impersonate', async () => {
      // Only the CA half of the server's PKI is needed to sign.
      const pkiDir = path.join(e2e.dir, 'data', 'pki');
      const ca = { caCertFile: path.join(pkiDir, 'ca.crt'), caKeyFile: path.join(pkiDir, 'ca.key'), caCertPem: caPem } as Pki;
      const bobCert = signClientCertificate(ca, { commonName: 'bob' });
      const bobConfig = path.join(e2e.dir, 'bob.kubeconfig');
      await writeKubeconfig(bobConfig,
        { server, caCertPem: caPem, clientCertPem: bobCert.certPem, clientKeyPem: bobCert.keyPem, user: 'bob' });
      const bob = kubectlWith(bobConfig);

      expect(whoamiTable((await expectKubectlOk(bob, ['auth', 'whoami'])).stdout))
        .to.deep.equal({ Username: 'bob', Groups: '[system:authenticated]' });
      const asJane = await expectKubectlFails(bob, ['--as=jane', 'get', 'ns']);
      expect(asJane.stderr.trim()).to.match(new RegExp('^Error from server \\(Forbidden\\): users "jane" is forbidden: '
        + 'User "bob" cannot impersonate resource "users" in API group "" at the cluster scope'));
      const asGroup = await expectKubectlFails(bob, ['--as=bob', '--as-group=system:masters', 'get', 'ns']);
      expect(asGroup.stderr.trim()).to.match(/^Error from server \(Forbidden\): users "bob" is forbidden: User "bob" cannot impersonate/);
      // whoami turns any 403 into its own sentence.
      const whoami = await expectKubectlFails(bob, ['--as=jane', 'auth', 'whoami']);
      expect(whoami.stderr.trim())
        .to.equal('error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it');
    });
  });

  describe('static, bootstrap and exec-plugin credentials', () => {
    it('a static token from --token-auth-file is the file\'s user, uid and groups', async () => {
      const r = await withToken(staticToken, ['auth', 'whoami']);
      expect(r.code, r.stderr).to.equal(0);
      expect(whoamiTable(r.stdout)).to.deep.equal({ Username: 'alice', UID: 'alice-uid-7', Groups: '[dev qa system:authenticated]' });
      const wrong = await withToken(`${staticToken.slice(0, -1)}x`, ['get', 'ns']);
      expect(wrong.stderr.trim()).to.equal(UNAUTHORIZED);
    });

    it('a bootstrap token from a kube-system Secret is system:bootstrap:<id> in system:bootstrappers', async () => {
      const id = randomBytes(3).toString('hex');
      const secret = randomBytes(8).toString('hex');
      await ok(['create', 'secret', 'generic', `bootstrap-token-${id}`, '-n', 'kube-system', '--type=bootstrap.kubernetes.io/token',
        `--from-literal=token-id=${id}`, `--from-literal=token-secret=${secret}`, '--from-literal=usage-bootstrap-authentication=true',
        '--from-literal=auth-extra-groups=system:bootstrappers:nodes']);
      const r = await withToken(`${id}.${secret}`, ['auth', 'whoami']);
      expect(r.code, r.stderr).to.equal(0);
      expect(whoamiTable(r.stdout)).to.deep.equal({
        Username: `system:bootstrap:${id}`, Groups: '[system:bootstrappers system:bootstrappers:nodes system:authenticated]',
      });
      const wrongSecret = await withToken(`${id}.${'0'.repeat(16)}`, ['get', 'ns']);
      expect(wrongSecret.stderr.trim()).to.equal(UNAUTHORIZED);
    });

    /** A kubeconfig whose user runs a /bin/sh plugin printing `token`; the plugin logs its input to the returned marker. */
    function execPluginKubeconfig(name: string, token: string): { kubectl: Kubectl; marker: string } {
      const plugin = path.join(e2e.dir, 'credential-plugin.sh');
      if (!existsSync(plugin)) {
        writeFileSync(plugin, [
          '#!/bin/sh',
          'printf "%s\\n" "$KUBERNETES_EXEC_INFO" >> "$PLUGIN_MARKER"',
          'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\\n\' "$PLUGIN_TOKEN"',
          '',
        ].join('\n'), { mode: 0o755 });
      }
      const marker = path.join(e2e.dir, `${name}.ran`);
      const kubeconfig = kubeconfigWithUser(`${name}.kubeconfig`, {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: [plugin], interactiveMode: 'Never',
          env: [{ name: 'PLUGIN_TOKEN', value: token }, { name: 'PLUGIN_MARKER', value: marker }],
        },
      });
      return { kubectl: kubectlWith(kubeconfig), marker };
    }

    it('an exec credential plugin\'s token authenticates kubectl; the plugin ran with the ExecCredential request', async () => {
      const good = execPluginKubeconfig('plugin-good', staticToken);
      const r = await expectKubectlOk(good.kubectl, ['auth', 'whoami']);
      expect(whoamiTable(r.stdout)).to.include({ Username: 'alice', UID: 'alice-uid-7' });
      const input = JSON.parse(readFileSync(good.marker, 'utf8').split('\n')[0]);
      expect(input).to.deep.include({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential' });
      expect(input.spec).to.include({ interactive: false });

      const saToken = (await ok(['create', 'token', 'robot'])).stdout.trim();
      const sa = execPluginKubeconfig('plugin-sa', saToken);
      expect(whoamiTable((await expectKubectlOk(sa.kubectl, ['auth', 'whoami'])).stdout).Username).to.equal(SA_USER);
    });

    it('a plugin printing a bad token makes kubectl fail with Unauthorized', async () => {
      const bad = execPluginKubeconfig('plugin-bad', 'not-a-token');
      const r = await expectKubectlFails(bad.kubectl, ['get', 'ns']);
      expect(r.stderr.trim()).to.equal(UNAUTHORIZED);
      expect(readFileSync(bad.marker, 'utf8').trim(), 'the plugin ran').to.not.equal('');
    });
  });
});
