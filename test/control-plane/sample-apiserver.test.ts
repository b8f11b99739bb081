/**
 * The aggregation layer end to end with Kubernetes' own extension server: sample-apiserver 1.20.2
 * (group wardle.example.com, Flunder and Fischer; built by build.sh) runs beside the server with
 * an etcd of its own and is registered as kube-aggregator's users register it (APIServices
 * v1alpha1 and v1beta1, Service wardle/api, caBundle of its serving CA). kubectl 1.32 and the API
 * check what a cluster with an aggregated API does: the APIServices become Available, discovery
 * (kubectl api-resources) and OpenAPI (kubectl explain) include the group, Flunders are created,
 * listed, read back as YAML, replaced and watched through the server, sample-apiserver's own
 * admission answers come back as it gave them, RBAC here refuses a user without a Role and lets
 * one with it through, and sample-apiserver's delegated TokenReview and SubjectAccessReview calls
 * reach the server (its audit log). Logs are kept in the run directory when a test fails.
 */
import https from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { KubectlResult } from '../helpers/kubectl';
import { SampleApiserverSetup, WARDLE_GROUP, WARDLE_IDENTITY, WARDLE_NAMESPACE } from './sample-apiserver-harness';

const NS = WARDLE_NAMESPACE;
const GV = `${WARDLE_GROUP}/v1alpha1`;
const FLUNDERS = `/apis/${GV}/namespaces/${NS}/flunders`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

describe('Kubernetes\' sample-apiserver 1.20 aggregated behind the server', function () {
  this.timeout(180_000);
  const setup = new SampleApiserverSetup();
  let failed = false;

  const ok = async (r: Promise<KubectlResult> | KubectlResult, what: string): Promise<string> => {
    const res = await r;
    expect(res.code, `${what}: ${res.stderr}\n${setup.tails()}`).to.equal(0);
    return res.stdout;
  };
  const kubectl = (args: string[]) => setup.kubectl(args, { timeoutMs: 60_000 });
  async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs / 1000} s: ${(err as Error).message}\n${setup.tails()}`);
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  const flunder = (name: string, spec: Obj = {}) => ({ apiVersion: GV, kind: 'Flunder', metadata: { name, namespace: NS }, spec });

  before(async function () {
    this.timeout(300_000);
    if (!SampleApiserverSetup.binaryPresent()) throw new Error('sample-apiserver is missing: run test/control-plane/build.sh (make test-control-plane does)');
    await setup.startServer({ audit: true });
    await setup.startSample();
    await setup.register();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async function () {
    this.timeout(60_000);
    const keep = failed || !!process.env.KEEP_CONTROL_PLANE;
    if (keep) console.log(`sample-apiserver: logs kept in ${setup.logDir}`);
    await setup.stop(keep);
  });

  it('the wardle APIServices become Available', async () => {
    await setup.waitAvailable(90_000);
    const listed = await setup.must('GET', '/apis/apiregistration.k8s.io/v1/apiservices');
    const names = (listed.items as Obj[]).map((a) => a.metadata.name);
    expect(names).to.include.members([`v1alpha1.${WARDLE_GROUP}`, `v1beta1.${WARDLE_GROUP}`]);
    // Beside them, the local APIServices of the server's own groups.
    expect(names).to.include('v1.apps');
  });

  it('discovery lists the group and kubectl api-resources lists flunders and fischers', async () => {
    const groups = await setup.must('GET', '/apis');
    const wardle = (groups.groups as Obj[]).find((g) => g.name === WARDLE_GROUP);
    expect(wardle, '/apis lists wardle.example.com').to.exist;
    expect((wardle.versions as Obj[]).map((v) => v.version)).to.include.members(['v1alpha1', 'v1beta1']);
    expect(wardle.preferredVersion.version, 'the higher versionPriority is preferred').to.equal('v1alpha1');
    await eventually('flunders in kubectl api-resources', 30_000, async () => {
      const out = await ok(kubectl(['api-resources', `--api-group=${WARDLE_GROUP}`, '-o', 'name']), 'kubectl api-resources');
      expect(out.split('\n').filter(Boolean)).to.include.members([`flunders.${WARDLE_GROUP}`, `fischers.${WARDLE_GROUP}`]);
    });
    const wide = await ok(kubectl(['api-resources', `--api-group=${WARDLE_GROUP}`]), 'kubectl api-resources');
    const row = wide.split('\n').find((l) => l.startsWith('flunders '));
    expect(row, 'flunders row').to.match(/\bwardle\.example\.com\/v1alpha1\s+true\s+Flunder\b/);
  });

  // sample-apiserver 1.20 publishes no OpenAPI v3, so kubectl's client-side validation reads the
  // group's schema from /openapi/v2, which it asks for as protobuf (gnostic's openapi.v2.Document).
  it('kubectl create -f a Flunder, and kubectl get flunders shows it', async () => {
    const file = path.join(setup.dir, 'flunder.yaml');
    writeFileSync(file, toYaml(flunder('my-flunder', { reference: 'other-flunder', referenceType: 'Flunder' })));
    const created = await ok(kubectl(['create', '-f', file]), 'kubectl create');
    expect(created.trim()).to.equal(`flunder.${WARDLE_GROUP}/my-flunder created`);
    const table = await ok(kubectl(['get', 'flunders', '-n', NS]), 'kubectl get flunders');
    // sample-apiserver's Table: the default columns of a resource without its own (Name, Created At).
    expect(table).to.match(/^NAME\s+CREATED AT\n/);
    expect(table).to.match(/\nmy-flunder\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);
    // The object is sample-apiserver's: its etcd holds it, the server's does not.
    const direct = await setup.must('GET', `${FLUNDERS}/my-flunder`);
    expect(direct.metadata.uid).to.be.a('string');
    expect(direct.spec).to.deep.equal({ reference: 'other-flunder', referenceType: 'Flunder' });
  });

  it('kubectl get -o yaml round trip: the YAML read back replaces the object', async () => {
    const yamlText = await ok(kubectl(['get', 'flunder', 'my-flunder', '-n', NS, '-o', 'yaml']), 'kubectl get -o yaml');
    const obj = parseYaml(yamlText) as Obj;
    expect(obj.apiVersion).to.equal(GV);
    expect(obj.kind).to.equal('Flunder');
    expect(obj.spec.reference).to.equal('other-flunder');
    obj.metadata.labels = { color: 'blue' };
    const file = path.join(setup.dir, 'flunder-back.yaml');
    writeFileSync(file, toYaml(obj));
    expect((await ok(kubectl(['replace', '-f', file]), 'kubectl replace')).trim()).to.equal(`flunder.${WARDLE_GROUP}/my-flunder replaced`);
    const after = JSON.parse(await ok(kubectl(['get', 'flunder', 'my-flunder', '-n', NS, '-o', 'json']), 'kubectl get -o json'));
    expect(after.metadata.labels).to.deep.equal({ color: 'blue' });
    expect(Number(after.metadata.resourceVersion)).to.be.greaterThan(Number(obj.metadata.resourceVersion));
    expect((await ok(kubectl(['get', 'flunders', '-n', NS, '-l', 'color=blue', '-o', 'name']), 'kubectl get -l')).trim()).to.equal(`flunder.${WARDLE_GROUP}/my-flunder`);
  });

  it('the other version: v1beta1 serves the same Flunders', async () => {
    await setup.must('POST', FLUNDERS, flunder('beta-flunder', { reference: 'my-flunder', referenceType: 'Flunder' }));
    const beta = await setup.must('GET', `/apis/${WARDLE_GROUP}/v1beta1/namespaces/${NS}/flunders/beta-flunder`);
    expect(beta.apiVersion).to.equal(`${WARDLE_GROUP}/v1beta1`);
    expect(beta.metadata.name).to.equal('beta-flunder');
    // v1beta1 names the reference by its kind.
    expect(beta.spec).to.deep.equal({ flunderReference: 'my-flunder', referenceType: 'Flunder' });
  });

  it('a watch through the server sees sample-apiserver\'s events', async () => {
    const list = await setup.must('GET', FLUNDERS);
    const rv = list.metadata.resourceVersion as string;
    const events: Obj[] = [];
    const kubeconfig = parseYaml(readFileSync(setup.server!.kubeconfigPath, 'utf8')) as Obj;
    const b64 = (s: string) => Buffer.from(s, 'base64');
    let req: ReturnType<typeof https.get> | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      req = https.get(`${setup.url}${FLUNDERS}?watch=true&resourceVersion=${rv}`, {
        ca: b64(kubeconfig.clusters[0].cluster['certificate-authority-data']),
        cert: b64(kubeconfig.users[0].user['client-certificate-data']), key: b64(kubeconfig.users[0].user['client-key-data']),
      }, (res) => {
        if (res.statusCode !== 200) { reject(new Error(`watch answered ${res.statusCode}`)); return; }
        let buf = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          buf += chunk;
          for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (!line) continue;
            const ev = JSON.parse(line) as Obj;
            events.push(ev);
            if (ev.type === 'ADDED' && ev.object?.metadata?.name === 'watched-flunder') resolve();
          }
        });
      });
      req.on('error', reject);
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      await setup.must('POST', FLUNDERS, flunder('watched-flunder'));
      await Promise.race([seen, new Promise((_, rej) => setTimeout(() => rej(new Error(`no ADDED event within 20 s; saw ${JSON.stringify(events.map((e) => e.type))}`)), 20_000))]);
    } finally {
      req?.destroy();
    }
    const added = events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched-flunder');
    expect(added.object.kind).to.equal('Flunder');
    expect(added.object.apiVersion).to.equal(GV);
  });

  it('sample-apiserver\'s own refusals come back as it gave them (BanFlunder admission)', async () => {
    await setup.must('POST', `/apis/${GV}/fischers`, { apiVersion: GV, kind: 'Fischer', metadata: { name: 'strict' }, disallowedFlunders: ['banned-flunder'] });
    // Its admission plugin reads Fischers from its own informer: the refusal follows within a moment.
    const refused = await eventually('BanFlunder refuses banned-flunder', 30_000, async () => {
      const r = await setup.api('POST', FLUNDERS, flunder('banned-flunder'));
      expect(r.status, r.body).to.equal(403);
      return r.json as Obj;
    });
    expect(refused.kind).to.equal('Status');
    expect(refused.reason).to.equal('Forbidden');
    expect(refused.message).to.include('this name may not be used, please change the resource name');
    // A Flunder that is not in its list is still created, and an invalid one is refused with 422.
    const invalid = await setup.api('POST', FLUNDERS, flunder('no-reference', { referenceType: 'Flunder' }));
    expect(invalid.status, invalid.body).to.equal(422);
    expect(invalid.json.reason).to.equal('Invalid');
    await setup.must('DELETE', `/apis/${GV}/fischers/strict`);
  });

  it('RBAC here refuses a user without rights on flunders, and lets one with a Role through', async () => {
    const user = 'wardle-viewer';
    const impersonate = { 'Impersonate-User': user, 'Impersonate-Group': 'wardle-users' };
    const refused = await setup.api('GET', FLUNDERS, undefined, impersonate);
    expect(refused.status, refused.body).to.equal(403);
    expect(refused.json.message).to.equal(`flunders.${WARDLE_GROUP} is forbidden: User "${user}" cannot list resource "flunders" in API group "${WARDLE_GROUP}" in the namespace "${NS}"`);
    const asUser = await setup.kubectlAs(user, ['wardle-users']);
    const denied = await asUser(['get', 'flunders', '-n', NS], { timeoutMs: 60_000 });
    expect(denied.code, denied.stdout).to.not.equal(0);
    expect(denied.stderr).to.include(`flunders.${WARDLE_GROUP} is forbidden: User "${user}" cannot list resource "flunders" in API group "${WARDLE_GROUP}" in the namespace "${NS}"`);
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await setup.must('POST', `${rbac}/namespaces/${NS}/roles`, {
      metadata: { name: 'flunder-reader', namespace: NS }, rules: [{ apiGroups: [WARDLE_GROUP], resources: ['flunders'], verbs: ['get', 'list', 'watch'] }],
    });
    await setup.must('POST', `${rbac}/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'flunder-reader', namespace: NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'flunder-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    await eventually('the user with a Role lists flunders (impersonated)', 30_000, async () => {
      const r = await setup.api('GET', FLUNDERS, undefined, impersonate);
      expect(r.status, r.body).to.equal(200);
    });
    const names = await eventually('the user with a Role lists flunders', 30_000, async () => ok(asUser(['get', 'flunders', '-n', NS, '-o', 'name']), 'kubectl get flunders as the user'));
    expect(names.split('\n').filter(Boolean)).to.include(`flunder.${WARDLE_GROUP}/my-flunder`);
    // The Role gives no create.
    const file = path.join(setup.dir, 'viewer-flunder.yaml');
    writeFileSync(file, toYaml(flunder('viewer-flunder')));
    const create = await asUser(['create', '-f', file]);
    expect(create.code).to.not.equal(0);
    expect(create.stderr).to.include('is forbidden');
  });

  it('sample-apiserver\'s delegated TokenReview and SubjectAccessReview calls reached the server', async () => {
    // A bearer token sent straight to sample-apiserver is reviewed here (TokenReview).
    await setup.must('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'token-holder' } }, true);
    const tr = await setup.must('POST', `/api/v1/namespaces/${NS}/serviceaccounts/token-holder/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    const direct = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.get({
        host: '127.0.0.1', port: setup.samplePort, path: FLUNDERS, ca: setup.servingCa!.certPem, servername: `api.${NS}.svc`,
        headers: { authorization: `Bearer ${tr.status.token as string}`, accept: 'application/json' },
      }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    // Authenticated by the TokenReview, then refused by the SubjectAccessReview: the account has no Role.
    expect(direct.status, direct.body).to.equal(403);
    expect(JSON.parse(direct.body).message).to.include(`User "system:serviceaccount:${NS}:token-holder" cannot list resource "flunders"`);
    await eventually('the audit log holds the reviews', 20_000, async () => {
      const byWardle = setup.auditEvents().filter((e) => e.user?.username === WARDLE_IDENTITY && e.stage === 'ResponseComplete');
      const reviews = (resource: string) => byWardle.filter((e) => e.verb === 'create' && e.objectRef?.resource === resource && e.responseStatus?.code === 201);
      expect(reviews('tokenreviews').length, 'TokenReviews by sample-apiserver').to.be.greaterThan(0);
      expect(reviews('subjectaccessreviews').length, 'SubjectAccessReviews by sample-apiserver').to.be.greaterThan(0);
      // It read the authentication ConfigMap (as extension-apiserver-authentication-reader).
      expect(byWardle.some((e) => e.objectRef?.resource === 'configmaps' && e.objectRef?.namespace === 'kube-system' && e.responseStatus?.code === 200)).to.equal(true);
    });
  });

  it('kubectl validates a Flunder client-side and explains it from the merged OpenAPI (v2: sample-apiserver 1.20 has no v3)', async () => {
    const file = path.join(setup.dir, 'flunder-unknown-field.yaml');
    writeFileSync(file, toYaml({ ...flunder('typo-flunder'), spec: { refrence: 'x' } }));
    const typo = await kubectl(['create', '--dry-run=client', '-f', file]);
    expect(typo.code, typo.stdout).to.not.equal(0);
    // kubectl's OpenAPI v2 validator (from the protobuf /openapi/v2), not the v3 one: its own wording.
    expect(typo.stderr, typo.stderr).to.include('ValidationError(Flunder.spec): unknown field "refrence" in io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FlunderSpec');
    writeFileSync(file, toYaml(flunder('fine-flunder', { reference: 'x', referenceType: 'Flunder' })));
    await ok(kubectl(['create', '--dry-run=client', '-f', file]), 'kubectl create --dry-run=client of a valid Flunder');
    const out = await eventually('kubectl explain flunders', 30_000, async () => ok(kubectl(['explain', 'flunders.spec', `--api-version=${GV}`]), 'kubectl explain'));
    expect(out).to.match(/KIND:\s+Flunder/);
    expect(out).to.include('reference');
  });

  it('the backend going away: 503 and Available False; back again: Available and served', async () => {
    await setup.must('POST', FLUNDERS, flunder('lasting-flunder'));
    await setup.sample!.stop();
    const down = await eventually('Available False after sample-apiserver stopped', 90_000, async () => {
      const c = await setup.availability(`v1alpha1.${WARDLE_GROUP}`);
      expect(c.status).to.equal('False');
      return c;
    });
    expect(down.reason).to.be.oneOf(['FailedDiscoveryCheck', 'MissingEndpoints', 'ServiceNotFound']);
    const r = await setup.api('GET', FLUNDERS);
    expect(r.status, r.body).to.equal(503);
    await setup.restartSample();
    await setup.waitAvailable(90_000);
    // The object is in sample-apiserver's etcd, which stayed up.
    const back = await setup.must('GET', `${FLUNDERS}/lasting-flunder`);
    expect(back.kind).to.equal('Flunder');
  });
});
