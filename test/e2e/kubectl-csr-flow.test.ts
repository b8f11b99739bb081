/**
 * The certificate signing flow with stock tools (kubernetes flavor): openssl makes a key and a
 * request, `kubectl create -f` submits it for `kubernetes.io/kube-apiserver-client`, `kubectl
 * certificate approve` approves it, the csrsigning controller signs it, and kubectl with a
 * kubeconfig holding that certificate and key is the user the certificate names.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';
import { kubectlFor, parseTable } from '../helpers/kubectl';
import { eventually } from '../helpers/server-harness';
import { writeKubeconfig } from '../../lib/server/pki';

describe('kubectl: CSR created, approved, signed and used (kubernetes flavor)', function () {
  this.timeout(60_000);
  const e2e = useKubectlServer('csr-flow', ['--flavor=kubernetes']);
  const { ok } = e2e;

  it('a kube-apiserver-client certificate from `kubectl certificate approve` authenticates kubectl as its subject', async () => {
    const key = path.join(e2e.dir, 'erin.key');
    const req = path.join(e2e.dir, 'erin.csr');
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', req, '-subj', '/O=devs/CN=erin'], { stdio: 'ignore' });
    const manifest = e2e.manifest('csr.yaml', {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'erin' },
      spec: {
        request: readFileSync(req).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['client auth'], expirationSeconds: 86_400,
      },
    });
    expect((await ok(['create', '-f', manifest])).stdout.trim()).to.equal('certificatesigningrequest.certificates.k8s.io/erin created');
    const pending = parseTable((await ok(['get', 'csr', 'erin'])).stdout);
    expect(pending.rows[0].CONDITION).to.equal('Pending');
    expect((await ok(['certificate', 'approve', 'erin'])).stdout.trim()).to.equal('certificatesigningrequest.certificates.k8s.io/erin approved');

    const certB64 = await eventually(async () => (await ok(['get', 'csr', 'erin', '-o', 'jsonpath={.status.certificate}'])).stdout.trim());
    const issued = parseTable((await ok(['get', 'csr', 'erin'])).stdout);
    expect(issued.rows[0].CONDITION).to.equal('Approved,Issued');

    const admin = parseYaml(readFileSync(e2e.server.kubeconfigPath, 'utf8'));
    const caPem = readFileSync(path.join(e2e.dir, 'data', 'pki', 'ca.crt'), 'utf8');
    const config = path.join(e2e.dir, 'erin.kubeconfig');
    await writeKubeconfig(config, {
      server: admin.clusters[0].cluster.server, caCertPem: caPem,
      clientCertPem: Buffer.from(certB64, 'base64').toString('utf8'), clientKeyPem: readFileSync(key, 'utf8'), user: 'erin',
    });
    const erin = kubectlFor(config, path.join(e2e.dir, 'kube-cache'));
    const whoami = await erin(['auth', 'whoami']);
    expect(whoami.code, whoami.stderr).to.equal(0);
    const table = parseTable(whoami.stdout);
    expect(Object.fromEntries(table.rows.map((r) => [r.ATTRIBUTE, r.VALUE])))
      .to.deep.equal({ Username: 'erin', Groups: '[devs system:authenticated]' });
  });
});
