/**
 * PodSecurity through HTTPS against the real server: namespace labels enforce/audit/warn with
 * versions, Kubernetes' 403 and Warning headers, exemptions and defaults from a configuration
 * file, updates, dry run, the warnings about existing pods when a namespace's enforce level is
 * tightened, and bad configurations stopping the start.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';

const L = 'pod-security.orch.io/';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };

type Spec = Record<string, unknown>;

const pod = (name: string, spec: Spec = {}, containerSecurity?: Spec): Spec => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1', ...(containerSecurity ? { securityContext: containerSecurity } : {}) }], ...spec },
});
const privileged = (name: string, spec: Spec = {}) => pod(name, spec, { privileged: true });
/** Meets restricted at every version. */
const compliant = (name: string) => pod(name, { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } },
  { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });

/** The messages of the response's Warning headers. */
function warnings(res: HttpResponse): string[] {
  const raw = res.headers.warning;
  const text = Array.isArray(raw) ? raw.join(', ') : raw ?? '';
  return [...text.matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string);
}

const RESTRICTED = 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
  + 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
  + 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
  + 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
const PRIVILEGED = 'privileged (container "c" must not set securityContext.privileged=true)';

describe('PodSecurity admission', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;

  /** An AdmissionConfiguration whose PodSecurity entry is the given configuration, inline or in a file beside it. */
  const admissionConfig = (name: string, podSecurity: Spec, inline = false): string => {
    const file = path.join(dir, `${name}.admission.json`);
    const entry: Spec = { name: 'PodSecurity' };
    if (inline) entry.configuration = podSecurity;
    else {
      writeFileSync(path.join(dir, `${name}.podsecurity.json`), JSON.stringify(podSecurity));
      entry.path = `${name}.podsecurity.json`;
    }
    writeFileSync(file, JSON.stringify({ apiVersion: 'apiserver.config.orch.io/v1', kind: 'AdmissionConfiguration', plugins: [entry] }));
    return file;
  };
  // Not about service accounts: pods need no `default` account to exist first.
  const flags = (config: string) => [`--admission-control-config-file=${config}`, '--disable-admission-plugins=ServiceAccount'];

  const namespace = async (name: string, labels: Record<string, string> = {}) => {
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    expect(res.status, res.text).to.equal(201);
  };
  /** The existing-pod check reads the Pod watch cache: wait until it holds `n` pods of the namespace. */
  const cached = (ns: string, n: number) => eventually(async () => (await t.get(`/api/v1/namespaces/${ns}/pods?resourceVersion=0`)).body.items.length === n);
  const createPod = (ns: string, body: Spec, query = '', identity?: { certPem: string; keyPem: string }) =>
    t.post(`/api/v1/namespaces/${ns}/pods${query}`, body, identity ? { identity } : {});

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pod-security-'));
    t = await startTestServer(flags(admissionConfig('main', {
      apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration',
      defaults: { warn: 'baseline' },
      exemptions: { namespaces: ['exempt-ns'], usernames: ['ci-bot'], runtimeClasses: ['kata'] },
    })));
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('invalid namespace labels are refused with 422 and Kubernetes\' message', async () => {
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bad-labels', labels: { [`${L}enforce`]: 'strict' } } });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.message).to.equal('Namespace "bad-labels" is invalid: metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": '
      + 'must be one of privileged, baseline, restricted');
    expect((await t.get('/api/v1/namespaces/bad-labels')).status).to.equal(404);
  });

  it('restricted refuses a privileged pod with Kubernetes\' 403, stores nothing, and admits a compliant pod', async () => {
    await namespace('psa-restricted', { [`${L}enforce`]: 'restricted' });
    const res = await createPod('psa-restricted', privileged('priv'));
    expect(res.status, res.text).to.equal(403);
    expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(res.body.message).to.equal(`pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED}, ${RESTRICTED}`);
    expect(res.body.details).to.deep.include({ name: 'priv', kind: 'pods' });
    expect((await t.get('/api/v1/namespaces/psa-restricted/pods/priv')).status).to.equal(404);
    const ok = await createPod('psa-restricted', compliant('good'));
    expect(ok.status, ok.text).to.equal(201);
    expect(warnings(ok)).to.deep.equal([]);
  });

  it('privileged namespaces admit it without warnings; the configured default warn level applies to unlabelled ones', async () => {
    await namespace('psa-privileged', { [`${L}enforce`]: 'privileged', [`${L}warn`]: 'privileged' });
    const res = await createPod('psa-privileged', privileged('priv'));
    expect(res.status, res.text).to.equal(201);
    expect(warnings(res)).to.deep.equal([]);
    await namespace('psa-plain');
    const warned = await createPod('psa-plain', privileged('priv'));
    expect(warned.status, warned.text).to.equal(201);
    expect(warnings(warned)).to.deep.equal([`would violate PodSecurity "baseline:latest": ${PRIVILEGED}`]);
  });

  it('warn and enforce versions: restricted v1.22 admits runAsUser=0 with a warning of restricted:latest', async () => {
    await namespace('psa-versions', { [`${L}enforce`]: 'restricted', [`${L}enforce-version`]: 'v1.22', [`${L}warn`]: 'restricted', [`${L}warn-version`]: 'latest' });
    const root = compliant('root');
    ((root.spec as { containers: Spec[] }).containers[0].securityContext as Spec).runAsUser = 0;
    const res = await createPod('psa-versions', root);
    expect(res.status, res.text).to.equal(201);
    expect(warnings(res)).to.deep.equal(['would violate PodSecurity "restricted:latest": runAsUser=0 (container "c" must not set runAsUser=0)']);
    await cached('psa-versions', 1);
    const strict = await t.request('PATCH', '/api/v1/namespaces/psa-versions', { body: { metadata: { labels: { [`${L}enforce-version`]: 'v1.23' } } }, headers: MERGE });
    expect(strict.status, strict.text).to.equal(200);
    expect(warnings(strict)).to.deep.equal([
      'existing pods in namespace "psa-versions" violate the new PodSecurity enforce level "restricted:v1.23"',
      'root: runAsUser=0',
    ]);
    const refused = await createPod('psa-versions', { ...root, metadata: { name: 'root-2' } });
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.equal('pods "root-2" is forbidden: violates PodSecurity "restricted:v1.23": runAsUser=0 (container "c" must not set runAsUser=0)');
  });

  it('exemptions from the configuration file: namespace, user and runtime class', async () => {
    await namespace('exempt-ns', { [`${L}enforce`]: 'restricted' });
    expect((await createPod('exempt-ns', privileged('priv'))).status).to.equal(201);
    await namespace('psa-exempt', { [`${L}enforce`]: 'restricted' });
    const bot = t.identity('ci-bot', ['system:masters']);
    expect((await createPod('psa-exempt', privileged('by-bot'), '', bot)).status).to.equal(201);
    const other = t.identity('someone', ['system:masters']);
    expect((await createPod('psa-exempt', privileged('by-other'), '', other)).status).to.equal(403);
    // The RuntimeClass plugin refuses a class that does not exist: both are made first.
    for (const name of ['kata', 'runc']) {
      const node = t.server.naming.group('node');
      const made = await t.request('POST', `/apis/${node}/v1/runtimeclasses`, { body: { apiVersion: `${node}/v1`, kind: 'RuntimeClass', metadata: { name }, handler: name } });
      expect(made.status, made.text).to.equal(201);
    }
    expect((await createPod('psa-exempt', privileged('kata', { runtimeClassName: 'kata' }))).status).to.equal(201);
    expect((await createPod('psa-exempt', privileged('runc', { runtimeClassName: 'runc' }))).status).to.equal(403);
  });

  it('dry run is evaluated the same way and stores nothing', async () => {
    await namespace('psa-dry', { [`${L}enforce`]: 'baseline', [`${L}warn`]: 'restricted' });
    const refused = await createPod('psa-dry', privileged('priv'), '?dryRun=All');
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.equal(`pods "priv" is forbidden: violates PodSecurity "baseline:latest": ${PRIVILEGED}`);
    const warned = await createPod('psa-dry', pod('plain'), '?dryRun=All');
    expect(warned.status, warned.text).to.equal(201);
    expect(warnings(warned)).to.deep.equal([`would violate PodSecurity "restricted:latest": ${RESTRICTED}`]);
    expect((await t.get('/api/v1/namespaces/psa-dry/pods/plain')).status).to.equal(404);
  });

  it('tightening a namespace warns about its existing pods; later updates are checked only when an image changes', async () => {
    await namespace('psa-tighten');
    for (const p of [privileged('b-priv'), privileged('a-priv'), pod('host', { hostNetwork: true }), pod('fine')]) {
      expect((await createPod('psa-tighten', p)).status).to.equal(201);
    }
    await cached('psa-tighten', 4);
    const res = await t.request('PATCH', '/api/v1/namespaces/psa-tighten', { body: { metadata: { labels: { [`${L}enforce`]: 'baseline' } } }, headers: MERGE });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.metadata.labels[`${L}enforce`]).to.equal('baseline');
    expect(warnings(res)).to.deep.equal([
      'existing pods in namespace "psa-tighten" violate the new PodSecurity enforce level "baseline:latest"',
      'a-priv (and 1 other pod): privileged',
      'host: host namespaces',
    ]);
    // Relaxing it again is not checked.
    const relaxed = await t.request('PATCH', '/api/v1/namespaces/psa-tighten', { body: { metadata: { labels: { [`${L}enforce`]: 'privileged' } } }, headers: MERGE });
    expect(warnings(relaxed)).to.deep.equal([]);
    await t.request('PATCH', '/api/v1/namespaces/psa-tighten', { body: { metadata: { labels: { [`${L}enforce`]: 'baseline' } } }, headers: MERGE });
    const path_ = '/api/v1/namespaces/psa-tighten/pods/a-priv';
    const labelled = await t.request('PATCH', path_, { body: { metadata: { labels: { team: 'a' } } }, headers: MERGE });
    expect(labelled.status, labelled.text).to.equal(200);
    const image = await t.request('PATCH', path_, { body: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, headers: STRATEGIC });
    expect(image.status, image.text).to.equal(403);
    expect(image.body.message).to.equal(`pods "a-priv" is forbidden: violates PodSecurity "baseline:latest": ${PRIVILEGED}`);
  });

  describe('bad configuration stops the start with one line', () => {
    const refusal = async (config: string): Promise<string> => {
      const err = await startTestServer(flags(config), { etcd: t.etcd }).then(async (s) => { await s.stop(); return undefined; }, (e: Error) => e);
      expect(err, 'the server started').to.be.instanceOf(Error);
      expect(err!.message.split('\n')).to.have.length(1);
      return err!.message;
    };

    it('an invalid level, an unknown field, or another kind', async () => {
      const base = { apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration' };
      expect(await refusal(admissionConfig('level', { ...base, defaults: { enforce: 'strict' } })))
        .to.equal('couldn\'t init admission plugin "PodSecurity": PodSecurity invalid: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted');
      expect(await refusal(admissionConfig('field', { ...base, exemptions: { users: ['x'] } }, true)))
        .to.equal('couldn\'t init admission plugin "PodSecurity": strict decoding error: unknown field "exemptions.users"');
      expect(await refusal(admissionConfig('kind', { apiVersion: 'v1', kind: 'ConfigMap' })))
        .to.equal('couldn\'t init admission plugin "PodSecurity": expected kind PodSecurityConfiguration of pod-security.admission.config.orch.io/v1, got "ConfigMap" of "v1"');
    });
  });
});
