/**
 * The access-control versions Kubernetes removed in 1.22, through HTTP against a real etcd:
 * rbac.authorization/v1beta1 (the four RBAC kinds over the v1 objects, the bootstrap policy,
 * escalation checks), certificates/v1beta1 CertificateSigningRequest (v1beta1's defaults and
 * looser validation; the approver and signers act on what it creates), authentication/v1beta1
 * TokenReview and the four authorization/v1beta1 access reviews (`spec.group` for v1's
 * `spec.groups`), each answered in the version asked. Off by default; `--runtime-config` turns
 * each group version on, with Kubernetes' deprecation warning.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { makeCsrPem, requestField } from '../helpers/csr-request';

type Body = Record<string, any>;
const RBAC_G = 'rbac.authorization.orch.io';
const CERT_G = 'certificates.orch.io';
const AUTHN_G = 'authentication.orch.io';
const AUTHZ_G = 'authorization.orch.io';
const GROUPS = [RBAC_G, CERT_G, AUTHN_G, AUTHZ_G];
const NS = 'removed-access';

const rbac = (version: string, resource: string, name = '', namespaced = false) =>
  `/apis/${RBAC_G}/${version}${namespaced ? `/namespaces/${NS}` : ''}/${resource}${name ? `/${name}` : ''}`;
const csrs = (version: string, name = '', sub = '') => `/apis/${CERT_G}/${version}/certificatesigningrequests${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
const warningOf = (res: HttpResponse) => String(res.headers.warning ?? '');
const deprecated = (group: string, kind: string, since: number) =>
  `${group}/v1beta1 ${kind} is deprecated in v1.${since}+, unavailable in v1.22+; use ${group}/v1 ${kind}`;

/** What the server adds to an object: drop it to compare the rest with what was written. */
function content(obj: Body): Body {
  const { metadata, apiVersion: _a, kind: _k, ...rest } = obj;
  const { name, namespace, labels, annotations } = metadata ?? {};
  return { metadata: { name, namespace, labels, annotations }, ...rest };
}

describe('removed access-control versions (v1beta1 of rbac, certificates, authentication, authorization)', function () {
  this.timeout(120_000);

  describe('by default', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(); });
    after(async () => { await t?.stop(); });

    it('none is served: 404, and discovery names v1 only', async () => {
      for (const g of GROUPS) {
        expect((await t.get(`/apis/${g}/v1beta1`)).status, g).to.equal(404);
        const group = (await t.get('/apis')).body.groups.find((x: Body) => x.name === g);
        expect(group.versions.map((v: Body) => v.version), g).to.deep.equal(['v1']);
      }
      expect((await t.get(rbac('v1beta1', 'clusterroles'))).status).to.equal(404);
      expect((await t.get(csrs('v1beta1'))).status).to.equal(404);
      const review = await t.post(`/apis/${AUTHN_G}/v1beta1/tokenreviews`, { apiVersion: `${AUTHN_G}/v1beta1`, kind: 'TokenReview', spec: { token: 'x' } });
      expect(review.status).to.equal(404);
    });
  });

  describe('switched on with --runtime-config', () => {
    let t: TestServer;
    let dir: string;
    const must = async (r: Promise<HttpResponse>) => {
      const res = await r;
      if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
      return res;
    };

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'removed-access-'));
      t = await startTestServer([`--runtime-config=${GROUPS.map((g) => `${g}/v1beta1=true`).join(',')}`, '--authorization-mode=RBAC']);
      await must(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
    });
    after(async () => {
      await t?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('discovery lists v1beta1 beside v1, which stays preferred', async () => {
      for (const g of GROUPS) {
        const group = (await t.get('/apis')).body.groups.find((x: Body) => x.name === g);
        expect(group.versions.map((v: Body) => v.version), g).to.deep.equal(['v1', 'v1beta1']);
        expect(group.preferredVersion.version, g).to.equal('v1');
      }
      const names = async (g: string) => (await t.get(`/apis/${g}/v1beta1`)).body.resources.map((r: Body) => r.name);
      expect(await names(RBAC_G)).to.have.members(['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']);
      expect(await names(CERT_G)).to.have.members(['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status']);
      expect(await names(AUTHN_G)).to.deep.equal(['tokenreviews']);
      expect(await names(AUTHZ_G)).to.have.members(['localsubjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews']);
    });

    describe('rbac.authorization/v1beta1', () => {
      const rules = [
        { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['configmaps', 'deployments'], resourceNames: ['a', 'b'] },
        { verbs: ['watch'], apiGroups: [''], resources: ['pods'] },
      ];
      const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] };
      // Written without the apiGroups v1beta1 defaults: roleRef's and the User and Group subjects'.
      const subjectsIn = [{ kind: 'User', name: 'ann' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'robot', namespace: NS }];
      const subjectsOut = [{ kind: 'User', apiGroup: RBAC_G, name: 'ann' }, { kind: 'Group', apiGroup: RBAC_G, name: 'devs' }, { kind: 'ServiceAccount', name: 'robot', namespace: NS }];
      const cases: Array<{ kind: string; resource: string; namespaced: boolean; written: Body; defaulted: Body }> = [
        { kind: 'Role', resource: 'roles', namespaced: true, written: { rules }, defaulted: { rules } },
        {
          kind: 'ClusterRole', resource: 'clusterroles', namespaced: false,
          written: { rules: [...rules, { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }], aggregationRule },
          // The aggregation controller fills an aggregated role's rules from the roles it selects (none here).
          defaulted: { rules: [], aggregationRule },
        },
        {
          kind: 'RoleBinding', resource: 'rolebindings', namespaced: true,
          written: { subjects: subjectsIn, roleRef: { kind: 'ClusterRole', name: 'view' } },
          defaulted: { subjects: subjectsOut, roleRef: { apiGroup: RBAC_G, kind: 'ClusterRole', name: 'view' } },
        },
        {
          kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', namespaced: false,
          written: { subjects: subjectsIn, roleRef: { kind: 'ClusterRole', name: 'view' } },
          defaulted: { subjects: subjectsOut, roleRef: { apiGroup: RBAC_G, kind: 'ClusterRole', name: 'view' } },
        },
      ];

      for (const c of cases) {
        const at = (version: string, name = '') => rbac(version, c.resource, name, c.namespaced);
        const obj = (version: string, name: string, fields: Body) => ({
          apiVersion: `${RBAC_G}/${version}`, kind: c.kind, metadata: { name, labels: { from: version } }, ...fields,
        });
        const meta = (name: string, from: string) => ({ name, namespace: c.namespaced ? NS : undefined, labels: { from }, annotations: undefined });

        it(`${c.kind}: created at v1beta1 (warned, defaulted), the same object at v1, and back at v1beta1`, async () => {
          const name = `beta-${c.resource}`;
          const created = await t.post(at('v1beta1'), obj('v1beta1', name, c.written));
          expect(created.status, created.text).to.equal(201);
          expect(created.body.apiVersion).to.equal(`${RBAC_G}/v1beta1`);
          expect(warningOf(created)).to.contain(deprecated(RBAC_G, c.kind, 17));
          const v1 = await eventually(async () => {
            const got = (await t.get(at('v1', name))).body;
            return (c.kind !== 'ClusterRole' || got.rules?.length === 0) && got;
          });
          expect(v1.apiVersion).to.equal(`${RBAC_G}/v1`);
          expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
          expect(content(v1)).to.deep.equal({ metadata: meta(name, 'v1beta1'), ...c.defaulted });
          const back = (await t.get(at('v1beta1', name))).body;
          expect(back.apiVersion).to.equal(`${RBAC_G}/v1beta1`);
          expect(content(back)).to.deep.equal(content(v1));
        });

        it(`${c.kind}: created at v1, read and updated at v1beta1, nothing lost at v1`, async () => {
          const name = `ga-${c.resource}`;
          const fields = c.kind === 'ClusterRole' ? { rules: c.written.rules } : c.defaulted;
          await must(t.post(at('v1'), obj('v1', name, fields)));
          const beta = (await t.get(at('v1beta1', name))).body;
          expect(beta.apiVersion).to.equal(`${RBAC_G}/v1beta1`);
          expect(content(beta)).to.deep.equal({ metadata: meta(name, 'v1'), ...fields });
          beta.metadata.labels.touched = 'v1beta1';
          const put = await t.put(at('v1beta1', name), beta);
          expect(put.status, put.text).to.equal(200);
          const v1 = (await t.get(at('v1', name))).body;
          expect(content(v1)).to.deep.equal({ metadata: { ...meta(name, 'v1'), labels: { from: 'v1', touched: 'v1beta1' } }, ...fields });
        });
      }

      it('a watch at v1beta1 sees an object written at v1, in v1beta1', async () => {
        const list = (await t.get(rbac('v1beta1', 'roles', '', true))).body;
        const w = openWatch(adminTarget(t.server), `${rbac('v1beta1', 'roles', '', true)}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
        try {
          await w.response();
          await must(t.post(rbac('v1', 'roles', '', true), { apiVersion: `${RBAC_G}/v1`, kind: 'Role', metadata: { name: 'watched' }, rules }));
          const ev = await w.waitFor((e) => e.object?.metadata?.name === 'watched');
          expect(ev.type).to.equal('ADDED');
          expect(ev.object.apiVersion).to.equal(`${RBAC_G}/v1beta1`);
          expect(ev.object.rules).to.deep.equal(rules);
        } finally {
          w.close();
        }
      });

      it('lists the bootstrap policy at v1beta1', async () => {
        const res = await t.get(rbac('v1beta1', 'clusterroles'));
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ apiVersion: `${RBAC_G}/v1beta1`, kind: 'ClusterRoleList' });
        const admin = res.body.items.find((i: Body) => i.metadata.name === 'cluster-admin');
        expect(admin.rules).to.deep.include({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
        const binding = (await t.get(rbac('v1beta1', 'clusterrolebindings', 'cluster-admin'))).body;
        expect(binding).to.deep.include({ apiVersion: `${RBAC_G}/v1beta1`, roleRef: { apiGroup: RBAC_G, kind: 'ClusterRole', name: 'cluster-admin' } });
      });

      it('refuses bad input at v1beta1 with v1\'s validation (422), storing nothing', async () => {
        const bad = await t.post(rbac('v1beta1', 'rolebindings', '', true), {
          apiVersion: `${RBAC_G}/v1beta1`, kind: 'RoleBinding', metadata: { name: 'bad' },
          roleRef: { kind: 'Secret', name: 'x' }, subjects: [{ kind: 'User', name: '' }],
        });
        expect(bad.status, bad.text).to.equal(422);
        expect(bad.body).to.include({ kind: 'Status', reason: 'Invalid' });
        expect(bad.body.message).to.contain('roleRef.kind: Unsupported value: "Secret"');
        expect(bad.body.message).to.contain('subjects[0].name: Required value');
        expect((await t.get(rbac('v1', 'rolebindings', 'bad', true))).status).to.equal(404);
      });

      it('refuses an escalation at v1beta1 as at v1 (403), storing nothing', async () => {
        const bob = t.identity('bob');
        await must(t.post(rbac('v1', 'roles', '', true), {
          apiVersion: `${RBAC_G}/v1`, kind: 'Role', metadata: { name: 'role-writer' },
          rules: [{ apiGroups: [RBAC_G], resources: ['roles'], verbs: ['create', 'get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
        }));
        await must(t.post(rbac('v1', 'rolebindings', '', true), {
          apiVersion: `${RBAC_G}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-writes-roles' },
          roleRef: { apiGroup: RBAC_G, kind: 'Role', name: 'role-writer' }, subjects: [{ kind: 'User', apiGroup: RBAC_G, name: 'bob' }],
        }));
        const role = (name: string, verbs: string[]) => ({
          apiVersion: `${RBAC_G}/v1beta1`, kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
        });
        // Held: allowed, once the binding is in the authorizer's memory.
        await eventually(async () => (await t.post(rbac('v1beta1', 'roles', '', true), role('held', ['get']), { identity: bob })).status === 201);
        const res = await t.post(rbac('v1beta1', 'roles', '', true), role('escalating', ['delete']), { identity: bob });
        expect(res.status, res.text).to.equal(403);
        expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden' });
        expect(res.body.message).to.equal(`roles.${RBAC_G} "escalating" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n`
          + `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`);
        expect((await t.get(rbac('v1', 'roles', 'escalating', true))).status).to.equal(404);
      });
    });

    describe('certificates/v1beta1 CertificateSigningRequest', () => {
      let n = 0;
      /** An RSA request by openssl for `subject`, with an optional subjectAltName. */
      function opensslRequest(subject: string, san?: string): string {
        const base = path.join(dir, `r${n++}`);
        const args = ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject];
        if (san) args.push('-addext', `subjectAltName=${san}`);
        execFileSync('openssl', args, { stdio: 'ignore' });
        return readFileSync(`${base}.csr`).toString('base64');
      }
      const csr = (version: string, name: string, spec: Body) => ({ apiVersion: `${CERT_G}/${version}`, kind: 'CertificateSigningRequest', metadata: { name }, spec });
      const create = async (version: string, name: string, spec: Body) => {
        const res = await t.post(csrs(version), csr(version, name, spec));
        expect(res.status, res.text).to.equal(201);
        return res;
      };
      const signed = (name: string) => eventually(async () => {
        const body = (await t.get(csrs('v1beta1', name))).body;
        return body.status?.certificate && body;
      });
      const approve = async (name: string) => {
        const cur = (await t.get(csrs('v1beta1', name))).body;
        cur.status = { conditions: [{ type: 'Approved', reason: 'Test', message: 'approved at v1beta1' }] };
        const res = await t.put(csrs('v1beta1', name, 'approval'), cur);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.apiVersion).to.equal(`${CERT_G}/v1beta1`);
        // v1beta1 defaults a condition's status to True.
        expect(res.body.status.conditions[0]).to.include({ type: 'Approved', status: 'True', reason: 'Test' });
      };

      it('defaults usages and the legacy-unknown signer, with the warning; the same object at v1', async () => {
        const request = requestField(makeCsrPem({ commonName: 'plain', keyType: 'ec' }));
        const created = await create('v1beta1', 'legacy', { request });
        expect(warningOf(created)).to.contain(deprecated(CERT_G, 'CertificateSigningRequest', 19));
        expect(created.body.apiVersion).to.equal(`${CERT_G}/v1beta1`);
        expect(created.body.spec).to.deep.include({ request, signerName: 'orch.io/legacy-unknown', usages: ['digital signature', 'key encipherment'] });
        const v1 = (await t.get(csrs('v1', 'legacy'))).body;
        expect(v1.apiVersion).to.equal(`${CERT_G}/v1`);
        expect(v1.spec).to.deep.equal(created.body.spec);
        expect(v1.metadata.uid).to.equal(created.body.metadata.uid);
        expect(content((await t.get(csrs('v1beta1', 'legacy'))).body)).to.deep.equal(content(v1));
      });

      it('a legacy-unknown request approved at v1beta1 is signed, and read at v1beta1', async () => {
        await approve('legacy');
        const obj = await signed('legacy');
        expect(obj.apiVersion).to.equal(`${CERT_G}/v1beta1`);
        const cert = new X509Certificate(Buffer.from(obj.status.certificate, 'base64'));
        expect(cert.subject).to.equal('CN=plain');
        expect(cert.checkIssued(new X509Certificate(t.server.pki.caCertPem))).to.equal(true);
      });

      it('defaults a node client request to kube-apiserver-client-kubelet: auto-approved and signed', async () => {
        const request = opensslRequest('/O=system:nodes/CN=system:node:n1');
        const created = await create('v1beta1', 'node-client', { request, usages: ['digital signature', 'key encipherment', 'client auth'] });
        expect(created.body.spec.signerName).to.equal('orch.io/kube-apiserver-client-kubelet');
        const obj = await signed('node-client');
        expect(obj.status.conditions.find((c: Body) => c.type === 'Approved')).to.include({ reason: 'AutoApproved' });
        expect(new X509Certificate(Buffer.from(obj.status.certificate, 'base64')).subject).to.equal('O=system:nodes\nCN=system:node:n1');
      });

      it('/status at v1beta1 may replace an issued certificate, which v1 refuses', async () => {
        const other = (await signed('node-client')).status.certificate;
        const v1 = (await t.get(csrs('v1', 'legacy'))).body;
        v1.status.certificate = other;
        const refused = await t.put(csrs('v1', 'legacy', 'status'), v1);
        expect(refused.status, refused.text).to.equal(422);
        expect(refused.body.message).to.contain('status.certificate: Forbidden: updates may not modify existing certificate content');
        const beta = (await t.get(csrs('v1beta1', 'legacy'))).body;
        beta.status.certificate = other;
        const put = await t.put(csrs('v1beta1', 'legacy', 'status'), beta);
        expect(put.status, put.text).to.equal(200);
        expect(put.body.apiVersion).to.equal(`${CERT_G}/v1beta1`);
        expect((await t.get(csrs('v1', 'legacy'))).body.status.certificate).to.equal(other);
      });

      it('defaults a node serving request to kubelet-serving, signed once approved', async () => {
        const request = opensslRequest('/O=system:nodes/CN=system:node:n1', 'DNS:n1.example,IP:10.0.0.1');
        const created = await create('v1beta1', 'node-serving', { request, usages: ['digital signature', 'key encipherment', 'server auth'] });
        expect(created.body.spec.signerName).to.equal('orch.io/kubelet-serving');
        await approve('node-serving');
        const cert = new X509Certificate(Buffer.from((await signed('node-serving')).status.certificate, 'base64'));
        expect(cert.subjectAltName).to.equal('DNS:n1.example, IP Address:10.0.0.1');
      });

      it('keeps a v1 request (with expirationSeconds) whole through a v1beta1 read and update', async () => {
        const request = requestField(makeCsrPem({ commonName: 'ga', keyType: 'ec' }));
        const spec = { request, signerName: 'example.com/ga', expirationSeconds: 3600, usages: ['client auth'] };
        await create('v1', 'ga', spec);
        const beta = (await t.get(csrs('v1beta1', 'ga'))).body;
        expect(beta.spec).to.deep.include(spec);
        beta.metadata.labels = { touched: 'v1beta1' };
        const put = await t.put(csrs('v1beta1', 'ga'), beta);
        expect(put.status, put.text).to.equal(200);
        const v1 = (await t.get(csrs('v1', 'ga'))).body;
        expect(v1.spec).to.deep.equal(beta.spec);
        expect(v1.metadata.labels).to.deep.equal({ touched: 'v1beta1' });
      });

      it('allows what only v1 refuses: the legacy signer and duplicate or unknown usages', async () => {
        const request = requestField(makeCsrPem({ commonName: 'loose', keyType: 'ec' }));
        const spec = { request, signerName: 'orch.io/legacy-unknown', usages: ['client auth', 'client auth', 'made up'] };
        const v1 = await t.post(csrs('v1'), csr('v1', 'loose', spec));
        expect(v1.status, v1.text).to.equal(422);
        expect(v1.body.message).to.contain('spec.signerName: Invalid value: "orch.io/legacy-unknown": the legacy signerName is not allowed via this API version');
        expect(v1.body.message).to.contain('spec.usages[1]: Duplicate value: "client auth"');
        await create('v1beta1', 'loose', spec);
      });

      it('refuses bad input at v1beta1 (422, Kubernetes\' messages), storing nothing', async () => {
        const res = await t.post(csrs('v1beta1'), csr('v1beta1', 'bad', { request: requestField('not a request'), usages: [], expirationSeconds: 60 }));
        expect(res.status, res.text).to.equal(422);
        expect(res.body).to.include({ kind: 'Status', reason: 'Invalid' });
        expect(res.body.message).to.contain('spec.request: Invalid value');
        expect(res.body.message).to.contain('spec.usages: Required value: usages must be provided');
        expect(res.body.message).to.contain('spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)');
        expect((await t.get(csrs('v1', 'bad'))).status).to.equal(404);
      });
    });

    describe('authentication/v1beta1 TokenReview', () => {
      const review = (token: string) => ({ apiVersion: `${AUTHN_G}/v1beta1`, kind: 'TokenReview', spec: { token } });

      it('authenticates a service account token, answering in v1beta1 with the warning', async () => {
        await must(t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } }));
        const token = (await must(t.post(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`,
          { apiVersion: `${AUTHN_G}/v1`, kind: 'TokenRequest', spec: {} }))).body.status.token;
        const res = await t.post(`/apis/${AUTHN_G}/v1beta1/tokenreviews`, review(token));
        expect(res.status, res.text).to.equal(201);
        expect(warningOf(res)).to.contain(deprecated(AUTHN_G, 'TokenReview', 19));
        expect(res.body).to.include({ apiVersion: `${AUTHN_G}/v1beta1`, kind: 'TokenReview' });
        expect(res.body.status.authenticated).to.equal(true);
        expect(res.body.status.user.username).to.equal(`system:serviceaccount:${NS}:robot`);
      });

      it('answers an unknown token as not authenticated, and refuses an empty one (400)', async () => {
        const res = await t.post(`/apis/${AUTHN_G}/v1beta1/tokenreviews`, review('not-a-token'));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.apiVersion).to.equal(`${AUTHN_G}/v1beta1`);
        expect(res.body.status.authenticated).to.equal(undefined);
        const empty = await t.post(`/apis/${AUTHN_G}/v1beta1/tokenreviews`, review(''));
        expect(empty.status, empty.text).to.equal(400);
      });
    });

    describe('authorization/v1beta1 access reviews', () => {
      const at = (resource: string, namespaced = false) => `/apis/${AUTHZ_G}/v1beta1${namespaced ? `/namespaces/${NS}` : ''}/${resource}`;
      const body = (kind: string, spec: Body, namespace?: string) => ({ apiVersion: `${AUTHZ_G}/v1beta1`, kind, metadata: namespace ? { namespace } : {}, spec });
      const attrs = { namespace: NS, verb: 'delete', resource: 'secrets' };

      it('SubjectAccessReview: spec.group is the groups asked about, echoed as group', async () => {
        const res = await t.post(at('subjectaccessreviews'), body('SubjectAccessReview', { resourceAttributes: attrs, user: 'eve', group: ['system:masters'] }));
        expect(res.status, res.text).to.equal(201);
        expect(warningOf(res)).to.contain(deprecated(AUTHZ_G, 'SubjectAccessReview', 19));
        expect(res.body.apiVersion).to.equal(`${AUTHZ_G}/v1beta1`);
        expect(res.body.spec).to.deep.equal({ resourceAttributes: attrs, user: 'eve', group: ['system:masters'] });
        expect(res.body.status.allowed).to.equal(true);
        const without = await t.post(at('subjectaccessreviews'), body('SubjectAccessReview', { resourceAttributes: attrs, user: 'eve' }));
        expect(without.body.status.allowed).to.equal(false);
      });

      it('LocalSubjectAccessReview: answered in the namespace, in v1beta1', async () => {
        const res = await t.post(at('localsubjectaccessreviews', true),
          body('LocalSubjectAccessReview', { resourceAttributes: attrs, user: 'eve', group: ['system:masters'] }, NS));
        expect(res.status, res.text).to.equal(201);
        expect(res.body).to.deep.include({ apiVersion: `${AUTHZ_G}/v1beta1`, kind: 'LocalSubjectAccessReview' });
        expect(res.body.spec.group).to.deep.equal(['system:masters']);
        expect(res.body.status.allowed).to.equal(true);
      });

      it('SelfSubjectAccessReview and SelfSubjectRulesReview: answered for the requester, in v1beta1', async () => {
        const ssar = await t.post(at('selfsubjectaccessreviews'), body('SelfSubjectAccessReview', { resourceAttributes: attrs }));
        expect(ssar.status, ssar.text).to.equal(201);
        expect(ssar.body.apiVersion).to.equal(`${AUTHZ_G}/v1beta1`);
        expect(ssar.body.status.allowed).to.equal(true);
        const ssrr = await t.post(at('selfsubjectrulesreviews'), body('SelfSubjectRulesReview', { namespace: NS }));
        expect(ssrr.status, ssrr.text).to.equal(201);
        expect(ssrr.body.apiVersion).to.equal(`${AUTHZ_G}/v1beta1`);
        expect(ssrr.body.status.resourceRules).to.deep.include({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      });

      it('refuses a review naming neither user nor group (422, Kubernetes\' message)', async () => {
        const res = await t.post(at('subjectaccessreviews'), body('SubjectAccessReview', { resourceAttributes: attrs }));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.message).to.contain('spec.user: Invalid value: "": at least one of user or group must be specified');
      });
    });
  });
});
