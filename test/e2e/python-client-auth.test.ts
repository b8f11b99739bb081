/**
 * Debian's python3-kubernetes (22.6) with bearer tokens against the real server process, as an
 * application holding a service-account token configures it (host, CA, `api_key` authorization
 * header, no client certificate): see test/e2e/python/token_client.py. Tokens come from kubectl
 * `create token` and from the library's own TokenRequest call.
 * --flavor=kubernetes because kubectl's `create token` sends authentication.k8s.io bodies.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';
import { requirePythonKubernetes, PYTHON, run } from '../helpers/python-kubernetes';

const SCRIPT = path.resolve(__dirname, '../../../test/e2e/python/token_client.py');

/** The line token_client.py printed. */
interface ScriptResult {
  ok: boolean;
  names?: string[];
  name?: string;
  uid?: string;
  data?: Record<string, string>;
  token?: string;
  expirationSeconds?: number;
  status?: number;
  reason?: string;
  body?: unknown;
}

const UNAUTHORIZED_STATUS = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401,
};

describe('python3-kubernetes with bearer tokens against the server process', function () {
  this.timeout(60_000);
  before(requirePythonKubernetes);
  const e2e = useKubectlServer('python-auth', ['--flavor=kubernetes']);
  const { ok } = e2e;

  let server: string;
  let caFile: string;
  let tokens = 0;

  before(async () => {
    server = parseYaml(readFileSync(e2e.server.kubeconfigPath, 'utf8')).clusters[0].cluster.server;
    caFile = path.join(e2e.dir, 'data', 'pki', 'ca.crt');
    await ok(['create', 'sa', 'robot']);
    // What the account may do is RBAC's: namespaces cluster-wide, and edit in default only.
    await ok(['create', 'clusterrole', 'namespace-reader', '--verb=get,list', '--resource=namespaces']);
    await ok(['create', 'clusterrolebinding', 'robot-namespaces', '--clusterrole=namespace-reader', '--serviceaccount=default:robot']);
    await ok(['create', 'rolebinding', 'robot-edit', '--clusterrole=edit', '--serviceaccount=default:robot', '-n', 'default']);
  });

  async function script(args: string[]): Promise<ScriptResult> {
    const r = await run(PYTHON, [SCRIPT, ...args], 30_000);
    expect(r.code, `token_client.py ${args.join(' ')} failed:\n${r.stderr}`).to.equal(0);
    return JSON.parse(r.stdout) as ScriptResult;
  }

  /** Runs the script as the holder of `token` (kept in a file, off the command line). */
  function withToken(token: string, args: string[]): Promise<ScriptResult> {
    const tokenFile = path.join(e2e.dir, `token-${++tokens}`);
    writeFileSync(tokenFile, token, { mode: 0o600 });
    return script(['--host', server, '--ca', caFile, '--token-file', tokenFile, ...args]);
  }

  it('a service-account token lists namespaces and creates a ConfigMap', async () => {
    const token = (await ok(['create', 'token', 'robot'])).stdout.trim();

    const listed = await withToken(token, ['list-namespaces']);
    expect(listed.ok, JSON.stringify(listed)).to.equal(true);
    expect(listed.names).to.include.members(['default', 'kube-system', 'kube-public']);

    const created = await withToken(token, ['create-configmap', 'default', 'from-python']);
    expect(created).to.deep.include({ ok: true, name: 'from-python', data: { from: 'python' } });
    const stored = await ok(['get', 'configmap', 'from-python', '-o', 'jsonpath={.metadata.uid} {.data.from}']);
    expect(stored.stdout).to.equal(`${created.uid} python`);

    // edit was granted in default only: elsewhere the library gets kube-apiserver's 403.
    const refused = await withToken(token, ['create-configmap', 'kube-public', 'not-here']);
    expect(refused).to.deep.include({ ok: false, status: 403, reason: 'Forbidden' });
    expect((refused.body as { message: string }).message).to.equal(
      'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot create resource "configmaps" in API group "" in the namespace "kube-public"');
  });

  it('a bad, a tampered or a wrong-audience token gets 401 with the Unauthorized Status', async () => {
    const token = (await ok(['create', 'token', 'robot'])).stdout.trim();
    // One character in the middle of the signature changed.
    const at = token.lastIndexOf('.') + 20;
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    const otherAudience = (await ok(['create', 'token', 'robot', '--audience=elsewhere'])).stdout.trim();

    for (const [what, bad] of Object.entries({ garbage: 'not-a-token', tampered, otherAudience })) {
      const listed = await withToken(bad, ['list-namespaces']);
      expect(listed, what).to.deep.equal({ ok: false, status: 401, reason: 'Unauthorized', body: UNAUTHORIZED_STATUS });
    }
    const created = await withToken('not-a-token', ['create-configmap', 'default', 'never-made']);
    expect(created).to.include({ ok: false, status: 401 });
    const after = await e2e.kubectl(['get', 'configmap', 'never-made']);
    expect(after.stderr.trim()).to.equal('Error from server (NotFound): configmaps "never-made" not found');
  });

  it('the library\'s own TokenRequest (as the admin) gives a token it can use', async () => {
    const requested = await script(['--kubeconfig', e2e.server.kubeconfigPath, 'request-token', 'default', 'robot']);
    expect(requested.ok, JSON.stringify(requested)).to.equal(true);
    expect(requested.expirationSeconds).to.equal(900);
    const listed = await withToken(requested.token!, ['list-namespaces']);
    expect(listed.ok, JSON.stringify(listed)).to.equal(true);

    const missing = await script(['--kubeconfig', e2e.server.kubeconfigPath, 'request-token', 'default', 'ghost']);
    expect(missing).to.deep.include({ ok: false, status: 404, reason: 'Not Found' });
    expect(missing.body).to.include({ reason: 'NotFound', message: 'serviceaccounts "ghost" not found' });
  });
});
