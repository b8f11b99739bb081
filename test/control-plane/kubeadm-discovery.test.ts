/**
 * kubeadm 1.20's token discovery against the server's own bootstrap signer (kubernetes flavor,
 * --controllers=*,bootstrapsigner,tokencleaner), with no controller-manager or kubelet: `kubeadm
 * join phase preflight` discovers the cluster (anonymous read of cluster-info, the JWS checked
 * with the token, the CA pinned by hash, read again over the pinned CA) and reads kubeadm-config
 * and kubelet-config with the token, and writes nothing. Its node checks (root, container
 * runtime, ports) are turned into warnings with --ignore-preflight-errors=all, and it runs as an
 * unprivileged user (nobody, from a copy outside root's home, when the suite runs as root).
 * Needs kubeadm from build.sh; not root.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { KUBE_BIN } from './components';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { newBootstrapToken } from '../helpers/bootstrap-token';
import { caCertHash, collectionPath, kubeadmInitObjects, kubeadmTokenSecret } from '../helpers/kubeadm-join';

const KUBEADM = path.join(KUBE_BIN, 'kubeadm');
const asRoot = process.getuid?.() === 0;

/** `kubeadm join phase preflight` with the token and CA hash; as nobody when this process is root. */
function preflight(kubeadm: string, server: string, token: string, caHash: string): Promise<{ code: number | null; output: string }> {
  const argv = [kubeadm, 'join', 'phase', 'preflight', new URL(server).host, '--token', token, '--discovery-token-ca-cert-hash', caHash,
    '--ignore-preflight-errors=all', '--cri-socket=/nonexistent/cri.sock', '--node-name=discovery-only', '--v=1'];
  const [cmd, ...args] = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv] : argv;
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 120_000, env: { PATH: process.env.PATH, HOME: '/nonexistent' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe('kubeadm 1.20 join discovery against the server\'s own bootstrap signer', function () {
  this.timeout(180_000);
  let t: TestServer;
  let hash: string;
  const token = newBootstrapToken();
  /** Where nobody can run kubeadm from (root's home is closed to it). */
  const binDir = mkdtempSync(path.join(os.tmpdir(), 'kubeadm-'));
  const kubeadm = path.join(binDir, 'kubeadm');

  before(async function () {
    if (!existsSync(KUBEADM)) throw new Error(`${KUBEADM} is missing: run test/control-plane/build.sh`);
    copyFileSync(KUBEADM, kubeadm);
    chmodSync(binDir, 0o755);
    chmodSync(kubeadm, 0o755);
    t = await startTestServer(['--flavor=kubernetes', '--enable-bootstrap-token-auth', '--authorization-mode=Node,RBAC',
      '--controllers=*,bootstrapsigner,tokencleaner']);
    hash = caCertHash(t.server.pki.caCertPem);
    for (const o of [...kubeadmInitObjects(), kubeadmTokenSecret(token.id, token.secret)]) {
      const res = await t.post(collectionPath(o), o);
      expect(res.status, res.text).to.equal(201);
    }
    await eventually(async () => !!(await t.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body?.data?.[`jws-kubeconfig-${token.id}`]);
  });
  after(async () => {
    await t?.stop();
    rmSync(binDir, { recursive: true, force: true });
  });

  it('discovers the cluster with the token and the CA hash, and reads its configuration with the token', async () => {
    const r = await preflight(kubeadm, t.server.url, token.token, hash);
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.contain(`[discovery] Cluster info signature and contents are valid and TLS certificate validates against pinned roots, will use API Server "${new URL(t.server.url).host}"`);
    expect(r.output).to.contain('[preflight] Reading configuration from the cluster...');
    if (asRoot) expect(r.output, 'run as nobody').to.contain('user is not running as root');
  });

  it('a wrong token secret fails the signature check, and a wrong CA hash the pin', async () => {
    const wrongSecret = await preflight(kubeadm, t.server.url, `${token.id}.${'0'.repeat(16)}`, hash);
    expect(wrongSecret.code, wrongSecret.output).to.not.equal(0);
    expect(wrongSecret.output).to.contain('failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
    const wrongPin = await preflight(kubeadm, t.server.url, token.token, `sha256:${'ab'.repeat(32)}`);
    expect(wrongPin.code, wrongPin.output).to.not.equal(0);
    expect(wrongPin.output).to.contain('cluster CA found in cluster-info ConfigMap is invalid');
  });
});
