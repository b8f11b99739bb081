/**
 * CertificateSigningRequests (certificates/v1) over HTTPS against a real etcd: kube-apiserver's
 * v1 field rules with its messages and nothing stored; the requester fields taken from the
 * creating user; the object itself never changing spec or status; `/approval` and `/status`
 * and what each may change; the approve and sign rights on signers (CertificateApproval,
 * CertificateSigning) and CertificateSubjectRestriction for RBAC identities; the Table kubectl
 * prints; protobuf.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { makeCsrPem, requestField } from '../helpers/csr-request';
import { createTestCa, issueTestCert } from '../helpers/test-ca';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

type Obj = Record<string, any>;
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const GROUP = 'certificates.orch.io';
const BASE = `/apis/${GROUP}/v1/certificatesigningrequests`;
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const SIGNER = 'example.com/my-signer';

const causes = (res: HttpResponse): Array<{ field: string; reason: string; message: string }> => res.body?.details?.causes ?? [];

function expectCause(res: HttpResponse, field: string, reason: string, message: string): void {
  expect(res.status, res.text).to.equal(422);
  expect(causes(res), JSON.stringify(causes(res))).to.deep.include({ reason, message, field });
}

describe('CertificateSigningRequests', function () {
  this.timeout(60_000);
  let t: TestServer;
  let seq = 0;
  const rsaPem = makeCsrPem({ commonName: 'alice', organizations: ['team'] });
  const name = () => `csr-${++seq}`;
  const csr = (n: string, spec: Obj = {}): Obj => ({
    apiVersion: `${GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: n },
    spec: { request: requestField(rsaPem), signerName: SIGNER, usages: ['digital signature', 'client auth'], ...spec },
  });
  const create = async (spec: Obj = {}): Promise<Obj> => {
    const res = await t.post(BASE, csr(name(), spec));
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const approve = (obj: Obj, type = 'Approved', identity?: { certPem: string; keyPem: string }) => t.put(`${BASE}/${obj.metadata.name}/approval`,
    { ...obj, status: { conditions: [...(obj.status?.conditions ?? []), { type, status: 'True', reason: 'Test', message: 'by test' }] } }, { identity });

  before(async () => {
    t = await startTestServer();
    // A requester, an approver for example.com/* (through the domain wildcard), and a signer for SIGNER only.
    const roles: Array<[string, Obj[]]> = [
      ['csr-requester', [{ apiGroups: [GROUP], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list'] }]],
      ['csr-approver', [
        { apiGroups: [GROUP], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] },
        { apiGroups: [GROUP], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }]],
      ['csr-updater', [{ apiGroups: [GROUP], resources: ['certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['update'] }]],
      ['csr-signer', [
        { apiGroups: [GROUP], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
        { apiGroups: [GROUP], resources: ['signers'], resourceNames: [SIGNER], verbs: ['sign'] }]],
    ];
    for (const [role, rules] of roles) {
      expect((await t.post(`${RBAC}/clusterroles`, { metadata: { name: role }, rules })).status).to.equal(201);
      const subjects = [{ kind: 'User', name: role.replace('csr-', ''), apiGroup: 'rbac.authorization.orch.io' }];
      expect((await t.post(`${RBAC}/clusterrolebindings`, { metadata: { name: role }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: role }, subjects })).status).to.equal(201);
    }
  });
  after(async () => { await t?.stop(); });

  describe('create', () => {
    it('records the creating user and ignores the requester fields and status the client sends', async () => {
      const requester = t.identity('requester', ['team-a']);
      const body = csr(name(), { username: 'mallory', uid: 'u-1', groups: ['system:masters'], extra: { x: ['y'] }, expirationSeconds: 3600 });
      body.status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'AAAA' };
      const res = await t.post(BASE, body, { identity: requester });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.include({ username: 'requester', signerName: SIGNER, expirationSeconds: 3600 });
      expect(res.body.spec.groups).to.deep.equal(['team-a', 'system:authenticated']);
      expect(res.body.spec).to.not.have.any.keys('uid', 'extra');
      expect(res.body.status ?? {}).to.deep.equal({});
      const admin = await create();
      expect(admin.spec.username).to.equal('orch-admin');
      expect(admin.spec.groups).to.include('system:masters');
    });

    it('accepts an ECDSA request', async () => {
      const obj = await create({ request: requestField(makeCsrPem({ keyType: 'ec' })) });
      expect(obj.spec.request).to.be.a('string');
    });

    const bad: Array<[string, Obj, string, string, string]> = [
      ['a request that is not PEM', { request: Buffer.from('hello').toString('base64') }, 'spec.request', 'FieldValueInvalid', 'PEM block type must be CERTIFICATE REQUEST'],
      ['a request whose signature does not verify', { request: requestField(makeCsrPem({ tamper: true })) }, 'spec.request', 'FieldValueInvalid', 'crypto/rsa: verification error'],
      ['no usages', { usages: [] }, 'spec.usages', 'FieldValueRequired', 'Required value: usages must be provided'],
      ['an unknown usage', { usages: ['client auth', 'flying'] }, 'spec.usages[1]', 'FieldValueNotSupported', 'Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"'],
      ['a duplicate usage', { usages: ['client auth', 'client auth'] }, 'spec.usages[1]', 'FieldValueDuplicate', 'Duplicate value: "client auth"'],
      ['no signerName', { signerName: '' }, 'spec.signerName', 'FieldValueRequired', 'Required value: signerName must be provided'],
      ['a signerName without a path', { signerName: 'example.com' }, 'spec.signerName', 'FieldValueInvalid', "Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"],
      ['a signerName whose domain has one segment', { signerName: 'example/foo' }, 'spec.signerName', 'FieldValueInvalid', 'Invalid value: "example": should be a domain with at least two segments separated by dots'],
      ['the legacy signer', { signerName: 'orch.io/legacy-unknown' }, 'spec.signerName', 'FieldValueInvalid', 'Invalid value: "orch.io/legacy-unknown": the legacy signerName is not allowed via this API version'],
      ['expirationSeconds under 600', { expirationSeconds: 599 }, 'spec.expirationSeconds', 'FieldValueInvalid', 'Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)'],
    ];
    for (const [what, spec, field, reason, message] of bad) {
      it(`refuses ${what} and stores nothing`, async () => {
        const n = name();
        const res = await t.post(BASE, csr(n, spec));
        if (field === 'spec.request') {
          expect(res.status, res.text).to.equal(422);
          expect(causes(res).find((c) => c.field === field)?.message).to.match(new RegExp(`^Invalid value: ".*": ${message.replace(/[/.]/g, '\\$&')}$`));
        } else {
          expectCause(res, field, reason, message);
        }
        expect(res.body.message).to.match(new RegExp(`^CertificateSigningRequest.${GROUP} "${n}" is invalid: `));
        expect((await t.get(`${BASE}/${n}`)).status).to.equal(404);
      });
    }

    it('refuses a kube-apiserver-client request for system:masters (CertificateSubjectRestriction)', async () => {
      const n = name();
      const res = await t.post(BASE, csr(n, { signerName: 'orch.io/kube-apiserver-client', request: requestField(makeCsrPem({ organizations: ['system:masters'] })) }));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal(`certificatesigningrequests.${GROUP} "${n}" is forbidden: use of orch.io/kube-apiserver-client signer with system:masters group is not allowed`);
    });
  });

  describe('updates', () => {
    it('keeps spec and status on an update of the object, while labels change', async () => {
      const obj = await create();
      const res = await t.put(`${BASE}/${obj.metadata.name}`, { ...obj, metadata: { ...obj.metadata, labels: { a: 'b' } }, spec: { ...obj.spec, usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', status: 'True' }] } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.labels).to.deep.equal({ a: 'b' });
      expect(res.body.spec.usages).to.deep.equal(['digital signature', 'client auth']);
      expect(res.body.status ?? {}).to.deep.equal({});
    });

    it('/approval sets Approved with timestamps, refuses Denied beside it and never removes it', async () => {
      const obj = await create();
      const res = await approve(obj);
      expect(res.status, res.text).to.equal(200);
      const [cond] = res.body.status.conditions;
      expect(cond).to.include({ type: 'Approved', status: 'True', reason: 'Test' });
      expect(cond.lastUpdateTime).to.match(/Z$/);
      expect(cond.lastTransitionTime).to.match(/Z$/);
      expectCause(await approve(res.body, 'Denied'), 'status.conditions[1].type', 'FieldValueInvalid', 'Invalid value: "Denied": Approved and Denied conditions are mutually exclusive');
      const removed = await t.put(`${BASE}/${obj.metadata.name}/approval`, { ...res.body, status: { conditions: [] } });
      expectCause(removed, 'status.conditions', 'FieldValueForbidden', 'Forbidden: updates may not remove a condition of type "Approved"');
      const dup = await t.put(`${BASE}/${obj.metadata.name}/approval`, { ...res.body, status: { conditions: [cond, { type: 'Approved', status: 'True' }] } });
      expectCause(dup, 'status.conditions[1].type', 'FieldValueDuplicate', 'Duplicate value: "Approved"');
    });

    it('/approval defaults a condition status to True and refuses another status for Approved', async () => {
      const obj = await create();
      const res = await t.put(`${BASE}/${obj.metadata.name}/approval`, { ...obj, status: { conditions: [{ type: 'Denied' }] } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status.conditions[0].status).to.equal('True');
      const other = await create();
      const bad = await t.put(`${BASE}/${other.metadata.name}/approval`, { ...other, status: { conditions: [{ type: 'Approved', status: 'False' }] } });
      expectCause(bad, 'status.conditions[0].status', 'FieldValueNotSupported', 'Unsupported value: "False": supported values: "True"');
      const junk = await t.put(`${BASE}/${other.metadata.name}/approval`, { ...other, status: { conditions: [null] } });
      expect(junk.status, junk.text).to.be.within(400, 499);
    });

    it('/status sets the certificate once, only PEM CERTIFICATE blocks, and may not add Approved', async () => {
      const obj = (await approve(await create())).body;
      const path = `${BASE}/${obj.metadata.name}/status`;
      const notPem = await t.put(path, { ...obj, status: { ...obj.status, certificate: Buffer.from('junk').toString('base64') } });
      expectCause(notPem, 'status.certificate', 'FieldValueInvalid', 'Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block');
      const keyBlock = await t.put(path, { ...obj, status: { ...obj.status, certificate: Buffer.from(rsaPem).toString('base64') } });
      expectCause(keyBlock, 'status.certificate', 'FieldValueInvalid', 'Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"');
      const ca = createTestCa('csr-test-ca');
      const cert = Buffer.from(issueTestCert(ca, { commonName: 'alice' }).certPem).toString('base64');
      const issued = await t.put(path, { ...obj, status: { ...obj.status, certificate: cert } });
      expect(issued.status, issued.text).to.equal(200);
      expect(issued.body.status.certificate).to.equal(cert);
      expect(issued.body.status.conditions[0].type).to.equal('Approved');
      const again = await t.put(path, { ...issued.body, status: { ...issued.body.status, certificate: Buffer.from(ca.certPem).toString('base64') } });
      expectCause(again, 'status.certificate', 'FieldValueForbidden', 'Forbidden: updates may not modify existing certificate content');
      const pending = await create();
      const addApproved = await t.put(`${BASE}/${pending.metadata.name}/status`, { ...pending, status: { conditions: [{ type: 'Approved', status: 'True' }] } });
      expectCause(addApproved, 'status.conditions', 'FieldValueForbidden', 'Forbidden: updates may not add a condition of type "Approved"');
      // A Failed condition is the signer's to set; the certificate is not /approval's.
      const failed = await t.put(`${BASE}/${pending.metadata.name}/status`, { ...pending, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'SignerError' }] } });
      expect(failed.status, failed.text).to.equal(200);
      const viaApproval = await t.put(`${BASE}/${pending.metadata.name}/approval`, { ...failed.body, status: { ...failed.body.status, certificate: cert } });
      expect(viaApproval.status, viaApproval.text).to.equal(200);
      expect(viaApproval.body.status.certificate).to.equal(undefined);
    });

    it('a merge patch of /approval adds a condition (kubectl certificate approve)', async () => {
      const obj = await create();
      const res = await t.request('PATCH', `${BASE}/${obj.metadata.name}/approval`, { body: { status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }] } }, headers: { 'content-type': MERGE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status.conditions.map((c: Obj) => c.type)).to.deep.equal(['Approved']);
    });
  });

  describe('approve and sign rights on signers', () => {
    it('approving needs approve on the signer (here through <domain>/*)', async () => {
      const obj = await create();
      const denied = await approve(obj, 'Approved', t.identity('updater'));
      expect(denied.status, denied.text).to.equal(403);
      expect(denied.body.message).to.equal(`certificatesigningrequests.${GROUP} "${obj.metadata.name}" is forbidden: user not permitted to approve requests with signerName "${SIGNER}"`);
      const ok = await approve(obj, 'Approved', t.identity('approver'));
      expect(ok.status, ok.text).to.equal(200);
      const other = await create({ signerName: 'other.io/signer' });
      expect((await approve(other, 'Approved', t.identity('approver'))).status).to.equal(403);
    });

    it('issuing needs sign on the signer', async () => {
      const obj = (await approve(await create())).body;
      const cert = Buffer.from(issueTestCert(createTestCa('sign-ca'), { commonName: 'alice' }).certPem).toString('base64');
      const body = { ...obj, status: { ...obj.status, certificate: cert } };
      const denied = await t.put(`${BASE}/${obj.metadata.name}/status`, body, { identity: t.identity('updater') });
      expect(denied.status, denied.text).to.equal(403);
      expect(denied.body.message).to.equal(`certificatesigningrequests.${GROUP} "${obj.metadata.name}" is forbidden: user not permitted to sign requests with signerName "${SIGNER}"`);
      const ok = await t.put(`${BASE}/${obj.metadata.name}/status`, body, { identity: t.identity('signer') });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.status.certificate).to.equal(cert);
    });
  });

  describe('output', () => {
    it('prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', async () => {
      const pending = await create({ expirationSeconds: 7200 });
      const approved = (await approve(await create())).body;
      const list = await t.get(`${BASE}?fieldSelector=spec.signerName=${SIGNER}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
      expect(list.status, list.text).to.equal(200);
      expect(list.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
      const row = (n: string) => list.body.rows.find((r: Obj) => r.cells[0] === n)?.cells;
      expect(row(pending.metadata.name).slice(2)).to.deep.equal([SIGNER, 'orch-admin', '120m', 'Pending']);
      expect(row(approved.metadata.name).slice(2)).to.deep.equal([SIGNER, 'orch-admin', '<none>', 'Approved']);
    });

    it('round-trips protobuf', async () => {
      const n = name();
      const body = csr(n, { expirationSeconds: 900 });
      const res = await t.request('POST', BASE, { raw: encodeProtobuf(body), headers: { 'content-type': K8S_PB, accept: K8S_PB } });
      expect(res.status, res.text).to.equal(201);
      const obj = decodeProtobuf(res.raw!) as Obj;
      expect(obj.spec).to.deep.include({ request: body.spec.request, signerName: SIGNER, expirationSeconds: 900, usages: body.spec.usages, username: 'orch-admin' });
      const json = (await t.get(`${BASE}/${n}`)).body;
      const approved = (await approve(json)).body;
      const pb = decodeProtobuf((await t.get(`${BASE}/${n}`, { headers: { accept: K8S_PB } })).raw!) as Obj;
      expect(pb.status).to.deep.equal(approved.status);
      expect(pb.spec).to.deep.equal(approved.spec);
    });
  });
});
