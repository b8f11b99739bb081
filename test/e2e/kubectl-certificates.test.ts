/**
 * kubectl (1.32) with CertificateSigningRequests, against a server with --flavor=kubernetes
 * (certificates.k8s.io): `create -f` of a request made by openssl, `get csr` with kubectl's
 * NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION columns, `certificate approve` and
 * `certificate deny` (through the approval subresource), and a refused manifest as kubectl
 * prints it.
 */
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import path from 'path';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const GROUP = 'certificates.k8s.io';
const SIGNER = 'example.com/e2e-signer';

describe('kubectl with CertificateSigningRequests', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-certificates', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  /** A CSR manifest whose request openssl made (RSA 2048, CN and O given). */
  function csrManifest(name: string, extra: Record<string, unknown> = {}): string {
    const out = path.join(e2e.dir, `${name}.csr`);
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(e2e.dir, `${name}.key`),
      '-subj', `/CN=${name}/O=e2e`, '-out', out], { stdio: 'ignore' });
    return e2e.manifest(`${name}.yaml`, {
      apiVersion: `${GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name },
      spec: { request: readFileSync(out).toString('base64'), signerName: SIGNER, usages: ['digital signature', 'client auth'], ...extra },
    });
  }

  it('api-resources lists certificatesigningrequests (csr), cluster-scoped, at v1', async () => {
    const table = parseTable((await ok(['api-resources', `--api-group=${GROUP}`])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.include(
      ['certificatesigningrequests', 'csr', `${GROUP}/v1`, 'false', 'CertificateSigningRequest']);
  });

  it('create -f, get csr, certificate approve and deny', async () => {
    expect((await ok(['create', '-f', csrManifest('jane', { expirationSeconds: 86400 })])).stdout)
      .to.contain(`certificatesigningrequest.${GROUP}/jane created`);
    expect((await ok(['create', '-f', csrManifest('joe')])).stdout).to.contain(`certificatesigningrequest.${GROUP}/joe created`);

    let table = parseTable((await ok(['get', 'csr'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    expect(table.rows.find((r) => r.NAME === 'jane')).to.deep.include({ SIGNERNAME: SIGNER, REQUESTOR: 'orch-admin', REQUESTEDDURATION: '24h', CONDITION: 'Pending' });
    expect(table.rows.find((r) => r.NAME === 'joe')).to.deep.include({ REQUESTEDDURATION: '<none>', CONDITION: 'Pending' });

    expect((await ok(['certificate', 'approve', 'jane'])).stdout).to.contain(`certificatesigningrequest.${GROUP}/jane approved`);
    expect((await ok(['certificate', 'deny', 'joe'])).stdout).to.contain(`certificatesigningrequest.${GROUP}/joe denied`);
    table = parseTable((await ok(['get', 'csr'])).stdout);
    expect(table.rows.find((r) => r.NAME === 'jane')?.CONDITION).to.equal('Approved');
    expect(table.rows.find((r) => r.NAME === 'joe')?.CONDITION).to.equal('Denied');

    const jane = JSON.parse((await ok(['get', 'csr', 'jane', '-o', 'json'])).stdout);
    expect(jane.status.conditions[0]).to.include({ type: 'Approved', status: 'True', reason: 'KubectlApprove' });
    // Denying an approved request: kubectl refuses to (the conditions are exclusive).
    await fails(['certificate', 'deny', 'jane']);
  });

  it('a manifest with the legacy signer is refused as kube-apiserver words it', async () => {
    const res = await fails(['create', '-f', csrManifest('legacy', { signerName: 'kubernetes.io/legacy-unknown' })]);
    expect(res.stderr).to.contain(`The CertificateSigningRequest "legacy" is invalid: spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`);
    await fails(['get', 'csr', 'legacy']);
  });
});
