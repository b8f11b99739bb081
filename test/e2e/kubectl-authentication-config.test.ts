/**
 * Structured authentication as stock kubectl (1.32) sees it: the server process started with
 * --authentication-config naming a JWT issuer the test serves over HTTPS, with a CEL claim
 * mapping; `kubectl auth whoami --token=<JWT>` shows the mapped user, its uid, groups and extra;
 * a token failing the claim validation rule is refused as kubectl reports a 401.
 *
 * --flavor=kubernetes: kubectl's `auth whoami` sends authentication.k8s.io/v1 SelfSubjectReviews.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';
import { Kubectl, kubectlFor, parseTable } from '../helpers/kubectl';
import { TestOidcProvider } from '../helpers/oidc-provider';

const UNAUTHORIZED = 'error: You must be logged in to the server (Unauthorized)';

function whoamiTable(stdout: string): Record<string, string> {
  const table = parseTable(stdout);
  expect(table.columns).to.deep.equal(['ATTRIBUTE', 'VALUE']);
  return Object.fromEntries(table.rows.map((r) => [r.ATTRIBUTE, r.VALUE]));
}

describe('kubectl with --authentication-config (kubernetes flavor)', function () {
  this.timeout(60_000);
  // The file must exist when the server starts: its path is fixed now, written by the first before hook.
  const filesDir = path.join(os.tmpdir(), `orch-e2e-authn-config-${process.pid}-${randomBytes(4).toString('hex')}`);
  const configFile = path.join(filesDir, 'authentication.yaml');
  let idp: TestOidcProvider;
  before(async () => {
    idp = await TestOidcProvider.create('/realms/dev');
    await idp.listen();
    mkdirSync(filesDir, { mode: 0o700 });
    writeFileSync(configFile, stringifyYaml({
      apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration',
      jwt: [{
        issuer: { url: idp.issuer, certificateAuthority: idp.caPem, audiences: ['kubectl'] },
        claimValidationRules: [{ expression: 'claims.tenant == "blue"', message: 'only the blue tenant' }],
        claimMappings: {
          username: { expression: '"oidc:" + claims.preferred_username' },
          groups: { claim: 'groups', prefix: 'oidc:' },
          uid: { claim: 'sub' },
          extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
        },
      }],
    }));
  });
  const e2e = useKubectlServer('authn-config', ['--flavor=kubernetes', `--authentication-config=${configFile}`]);
  after(async () => {
    rmSync(filesDir, { recursive: true, force: true });
    await idp?.dispose();
  });

  /** kubectl with a kubeconfig of the server and its CA only: the token comes as a flag. */
  let kubectl: Kubectl;
  before(() => {
    const admin = parseYaml(readFileSync(e2e.server.kubeconfigPath, 'utf8'));
    const caPem = readFileSync(path.join(e2e.dir, 'data', 'pki', 'ca.crt'), 'utf8');
    const kubeconfig = path.join(e2e.dir, 'token-only.kubeconfig');
    writeFileSync(kubeconfig, stringifyYaml({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'orch', cluster: { server: admin.clusters[0].cluster.server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
      users: [{ name: 'someone', user: {} }],
      contexts: [{ name: 'orch', context: { cluster: 'orch', user: 'someone' } }],
      'current-context': 'orch',
    }), { mode: 0o600 });
    kubectl = kubectlFor(kubeconfig, path.join(e2e.dir, 'kube-cache'));
  });

  const token = (claims: Record<string, unknown> = {}) => idp.sign({
    aud: 'kubectl', sub: 'f3a1-77', preferred_username: 'jane', groups: ['dev', 'qa'], tenant: 'blue', ...claims,
  });

  it('auth whoami shows the mapped user, uid, prefixed groups and the extra', async () => {
    const r = await kubectl([`--token=${await token()}`, 'auth', 'whoami']);
    expect(r.code, r.stderr).to.equal(0);
    expect(whoamiTable(r.stdout)).to.deep.equal({
      Username: 'oidc:jane', UID: 'f3a1-77', Groups: '[oidc:dev oidc:qa system:authenticated]', 'Extra: example.com/tenant': '[blue]',
    });
  });

  it('a token failing the claim validation rule, and an expired one, are 401', async () => {
    for (const claims of [{ tenant: 'red' }, { exp: Math.floor(Date.now() / 1000) - 30 }]) {
      const r = await kubectl([`--token=${await token(claims)}`, 'auth', 'whoami']);
      expect(r.code).to.equal(1);
      expect(r.stderr.trim()).to.equal(UNAUTHORIZED);
    }
  });

  it('the mapped user has only what RBAC grants it: listing namespaces is forbidden by name', async () => {
    const r = await kubectl([`--token=${await token()}`, 'get', 'ns', '-o', 'name']);
    expect(r.code).to.equal(1);
    expect(r.stderr.trim()).to.equal('Error from server (Forbidden): namespaces is forbidden: User "oidc:jane" cannot list resource "namespaces" in API group "" at the cluster scope');
  });
});
