/**
 * CertificateApproval, CertificateSigning and CertificateSubjectRestriction with hand-made
 * attributes and a recording authorizer: the CertificateSigningRequest kind arrives with issue 16,
 * so no request reaches these plugins over HTTP yet. Checked: which requests they look at, the
 * signer attributes asked (exact name, then `<domain>/*`), the signer read from the stored
 * object, and Kubernetes' refusals.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';
import { AdmissionAttributes, Operation } from '../../../../lib/registry/admission-attributes';
import { certificateApproval } from '../../../../lib/admission/resources/certificate-approval';
import { certificateSigning } from '../../../../lib/admission/resources/certificate-signing';
import { certificateSubjectRestriction } from '../../../../lib/admission/resources/certificate-subject-restriction';
import { csrOrganizations } from '../../../../lib/admission/resources/csr-object';
import { AuthorizationAttributes } from '../../../../lib/authz/attributes';
import { AuthorizationResult, Authorizer } from '../../../../lib/authz/authorizer';
import { ApiObject, ResourceDef } from '../../../../lib/scheme/types';

const GROUP = 'certificates.orch.io';
const CLIENT_SIGNER = 'orch.io/kube-apiserver-client';
const csrs = { group: GROUP, version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false } as ResourceDef;
const bob = { name: 'bob', groups: ['approvers', 'system:authenticated'] };

/** An authorizer that allows exactly the signer names given (for `verb`), and records every question. */
function authorizerAllowing(verb: string, names: string[]): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    authorize(a: AuthorizationAttributes): AuthorizationResult {
      asked.push(a);
      return { decision: a.verb === verb && names.includes(a.name) ? 'allow' : 'no-opinion', reason: '' };
    },
  };
}

const csr = (signerName: string, status: ApiObject['status'] = {}, request = ''): ApiObject => ({
  apiVersion: `${GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'req-1' },
  spec: { signerName, request, usages: ['client auth'] }, status,
});

function attrs(operation: Operation, subresource: string, object?: ApiObject, oldObject?: ApiObject, resource = csrs): AdmissionAttributes {
  return { operation, resource, subresource: subresource || undefined, name: 'req-1', object, oldObject, dryRun: false, ctx: { user: bob } };
}

const refusal = (p: Promise<void>) => p.then(() => undefined, (e) => e);

/** base64 of a PEM CSR with subject CN=`cn`, O=each of `orgs` (RSA, made with node-forge). */
function rsaCsr(cn: string, orgs: string[]): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const req = forge.pki.createCertificationRequest();
  req.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  req.setSubject([{ name: 'commonName', value: cn }, ...orgs.map((o) => ({ name: 'organizationName', value: o }))]);
  req.sign(forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()), forge.md.sha256.create());
  return Buffer.from(forge.pki.certificationRequestToPem(req)).toString('base64');
}

describe('CertificateApproval', () => {
  const approved = { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] };

  it('asks approve on the signer, then on its domain, and refuses with Kubernetes\' words', async () => {
    const authz = authorizerAllowing('approve', []);
    const plugin = certificateApproval({ authorization: { chain: authz } }, GROUP);
    const err = await refusal(plugin.validate!(attrs('UPDATE', 'approval', csr('example.com/signer', approved), csr('example.com/signer'))));
    expect(err).to.include({ code: 403, reason: 'Forbidden' });
    expect(err.message).to.equal(`certificatesigningrequests.${GROUP} "req-1" is forbidden: user not permitted to approve requests with signerName "example.com/signer"`);
    expect(authz.asked.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.name, a.namespace, a.isResourceRequest, a.user.name]))
      .to.deep.equal([
        ['approve', GROUP, '*', 'signers', 'example.com/signer', '', true, 'bob'],
        ['approve', GROUP, '*', 'signers', 'example.com/*', '', true, 'bob'],
      ]);
  });

  it('admits a user allowed on the exact signer or on the domain wildcard', async () => {
    for (const allowed of ['example.com/signer', 'example.com/*']) {
      const plugin = certificateApproval({ authorization: { chain: authorizerAllowing('approve', [allowed]) } }, GROUP);
      await plugin.validate!(attrs('UPDATE', 'approval', csr('example.com/signer', approved), csr('example.com/signer')));
    }
  });

  it('checks the signer of the stored request, not the one sent', async () => {
    const plugin = certificateApproval({ authorization: { chain: authorizerAllowing('approve', ['example.com/mine']) } }, GROUP);
    const err = await refusal(plugin.validate!(attrs('UPDATE', 'approval', csr('example.com/mine', approved), csr('example.com/theirs'))));
    expect(err?.message).to.contain('signerName "example.com/theirs"');
  });

  it('looks only at updates of the approval subresource of CSRs', async () => {
    const authz = authorizerAllowing('approve', []);
    const plugin = certificateApproval({ authorization: { chain: authz } }, GROUP);
    await plugin.validate!(attrs('CREATE', '', csr('example.com/signer')));
    await plugin.validate!(attrs('UPDATE', 'status', csr('example.com/signer', approved), csr('example.com/signer')));
    await plugin.validate!(attrs('UPDATE', 'approval', csr('x/y'), csr('x/y'), { ...csrs, group: 'certificates.k8s.io' }));
    expect(authz.asked).to.deep.equal([]);
  });

  it('refuses (500) rather than admits when no authorizer is set', async () => {
    const plugin = certificateApproval({}, GROUP);
    const err = await refusal(plugin.validate!(attrs('UPDATE', 'approval', csr('x/y'), csr('x/y'))));
    expect(err?.code).to.equal(500);
  });
});

describe('CertificateSigning', () => {
  const issued = { certificate: 'LS0tLS1CRUdJTi...', conditions: [{ type: 'Approved', status: 'True' }] };

  it('refuses a change of status.certificate without sign on the signer', async () => {
    const authz = authorizerAllowing('sign', []);
    const plugin = certificateSigning({ authorization: { chain: authz } }, GROUP);
    const before = csr('example.com/signer', { conditions: issued.conditions });
    const err = await refusal(plugin.validate!(attrs('UPDATE', 'status', csr('example.com/signer', issued), before)));
    expect(err?.message).to.equal(`certificatesigningrequests.${GROUP} "req-1" is forbidden: user not permitted to sign requests with signerName "example.com/signer"`);
    expect(authz.asked.map((a) => [a.verb, a.resource, a.name])).to.deep.equal([['sign', 'signers', 'example.com/signer'], ['sign', 'signers', 'example.com/*']]);
  });

  it('refuses a change of status.conditions without sign, and admits a signer', async () => {
    const failed = csr('example.com/signer', { conditions: [{ type: 'Failed', status: 'True' }] });
    const denied = certificateSigning({ authorization: { chain: authorizerAllowing('sign', []) } }, GROUP);
    expect((await refusal(denied.validate!(attrs('UPDATE', 'status', failed, csr('example.com/signer')))))?.code).to.equal(403);
    const signer = certificateSigning({ authorization: { chain: authorizerAllowing('sign', ['example.com/*']) } }, GROUP);
    await signer.validate!(attrs('UPDATE', 'status', failed, csr('example.com/signer')));
  });

  it('asks nothing when neither the certificate nor the conditions change', async () => {
    const authz = authorizerAllowing('sign', []);
    const plugin = certificateSigning({ authorization: { chain: authz } }, GROUP);
    const same = csr('example.com/signer', issued);
    await plugin.validate!(attrs('UPDATE', 'status', { ...same, metadata: { name: 'req-1', labels: { a: 'b' } } }, same));
    await plugin.validate!(attrs('UPDATE', 'approval', csr('example.com/signer', issued), csr('example.com/signer')));
    expect(authz.asked).to.deep.equal([]);
  });
});

describe('CertificateSubjectRestriction', () => {
  const plugin = certificateSubjectRestriction(GROUP, CLIENT_SIGNER);

  it('refuses a client-signer request whose subject names system:masters', async () => {
    const err = await refusal(plugin.validate!(attrs('CREATE', '', csr(CLIENT_SIGNER, {}, rsaCsr('eve', ['devs', 'system:masters'])))));
    expect(err).to.include({ code: 403, reason: 'Forbidden' });
    expect(err.message).to.equal(`certificatesigningrequests.${GROUP} "req-1" is forbidden: use of ${CLIENT_SIGNER} signer with system:masters group is not allowed`);
  });

  it('admits other groups, and system:masters for other signers', async () => {
    await plugin.validate!(attrs('CREATE', '', csr(CLIENT_SIGNER, {}, rsaCsr('ann', ['devs']))));
    await plugin.validate!(attrs('CREATE', '', csr('example.com/signer', {}, rsaCsr('eve', ['system:masters']))));
  });

  it('refuses a client-signer request that is no PEM CERTIFICATE REQUEST', async () => {
    const notPem = await refusal(plugin.validate!(attrs('CREATE', '', csr(CLIENT_SIGNER, {}, Buffer.from('hello').toString('base64')))));
    expect(notPem?.message).to.equal(`certificatesigningrequests.${GROUP} "req-1" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST`);
    const garbled = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
    expect((await refusal(plugin.validate!(attrs('CREATE', '', csr(CLIENT_SIGNER, {}, garbled)))))?.message).to.contain('failed to parse CSR: ');
  });

  it('looks only at creates of CSRs', async () => {
    const masters = csr(CLIENT_SIGNER, {}, rsaCsr('eve', ['system:masters']));
    await plugin.validate!(attrs('UPDATE', '', masters, masters));
    await plugin.validate!(attrs('CREATE', '', masters, undefined, { ...csrs, resource: 'configmaps', group: '' }));
  });
});

describe('csrOrganizations', () => {
  it('reads the subject organizations of an ECDSA request made by openssl', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'csr-'));
    try {
      const key = path.join(dir, 'k.pem');
      const out = path.join(dir, 'r.pem');
      execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
      execFileSync('openssl', ['req', '-new', '-key', key, '-subj', '/O=system:masters/O=ops/CN=eve', '-out', out]);
      expect(csrOrganizations(readFileSync(out).toString('base64'))).to.deep.equal(['system:masters', 'ops']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
