/**
 * The Pod admission plugins through HTTPS on a real etcd. With the default set (orch flavor):
 * ServiceAccount (the default account, the kube-api-access token volume and mounts, missing
 * accounts refused, automount opt-out and pull secrets from the account, mountable secrets),
 * DefaultTolerationSeconds with its flag, and Priority. With the others enabled by flag and
 * configured by --admission-control-config-file (kubernetes flavor): AlwaysPullImages,
 * SecurityContextDeny, LimitPodHardAntiAffinityTopology, PodNodeSelector,
 * PodTolerationRestriction and ExtendedResourceToleration. Every refusal leaves nothing stored.
 */
import { expectForbidden } from '../helpers/kind-checks';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';

type Body = Record<string, any>;

const podsPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;
const pod = (name: string, spec: Body = {}, meta: Body = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});

async function namespace(t: TestServer, name: string, annotations: Record<string, string> = {}): Promise<void> {
  const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } });
  expect(res.status, res.text).to.equal(201);
}

/** A refused create: 403 with `message`, and no such pod afterwards. */
async function refused(t: TestServer, ns: string, body: Body, message: string): Promise<void> {
  expectForbidden(await t.post(podsPath(ns), body), message);
  expect((await t.get(podsPath(ns, body.metadata.name))).status).to.equal(404);
}

async function created(t: TestServer, ns: string, body: Body, query = ''): Promise<Body> {
  const res = await t.post(`${podsPath(ns)}${query}`, body);
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

describe('Pod admission plugins enabled by default (orch flavor)', () => {
  let t: TestServer;
  const NS = 'apps';
  before(async () => {
    t = await startTestServer(['--default-unreachable-toleration-seconds=60']);
    // No wait for the default account: the plugin reads it live while its controller creates it.
    await namespace(t, NS);
  });
  after(async () => { await t?.stop(); });

  it('gives a new pod the default account, a mounted token volume, the node-failure tolerations and priority 0', async () => {
    const body = await created(t, NS, pod('web', { initContainers: [{ name: 'init', image: 'busybox' }] }));
    const spec = body.spec;
    expect(spec.serviceAccountName).to.equal('default');
    const volume = spec.volumes.find((v: Body) => v.name.startsWith('kube-api-access-'));
    expect(volume.name).to.match(/^kube-api-access-[a-z0-9]{5}$/);
    expect(volume.projected).to.deep.equal({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/orch.io/serviceaccount' };
    expect(spec.containers[0].volumeMounts).to.deep.equal([mount]);
    expect(spec.initContainers[0].volumeMounts).to.deep.equal([mount]);
    expect(spec.tolerations).to.deep.equal([
      { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
    expect(spec).to.include({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect((await t.get(podsPath(NS, 'web'))).body.spec).to.deep.equal(spec);
  });

  it('refuses a pod naming an account that does not exist, as kube-apiserver words it', async () => {
    await refused(t, NS, pod('orphan', { serviceAccountName: 'robot' }),
      `pods "orphan" is forbidden: error looking up service account ${NS}/robot: serviceaccount "robot" not found`);
  });

  it("mounts nothing for an account with automountServiceAccountToken: false and copies the account's imagePullSecrets", async () => {
    const sa = await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, {
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }],
    });
    expect(sa.status, sa.text).to.equal(201);
    const { spec } = await created(t, NS, pod('quiet', { serviceAccountName: 'quiet' }));
    expect(spec.volumes ?? []).to.deep.equal([]);
    expect(spec.containers[0].volumeMounts ?? []).to.deep.equal([]);
    expect(spec.imagePullSecrets).to.deep.equal([{ name: 'registry' }]);
  });

  it('refuses secrets an enforcing account does not list', async () => {
    const sa = await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, {
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'strict', annotations: { 'orch.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }],
    });
    expect(sa.status, sa.text).to.equal(201);
    await created(t, NS, pod('strict-ok', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }));
    await refused(t, NS, pod('strict-no', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }),
      'pods "strict-no" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
  });

  it('resolves the built-in priority classes and refuses any other, and a priority the pod sets itself', async () => {
    const { spec } = await created(t, NS, pod('critical', { priorityClassName: 'system-node-critical' }));
    expect(spec).to.include({ priority: 2000001000, preemptionPolicy: 'PreemptLowerPriority' });
    await refused(t, NS, pod('high', { priorityClassName: 'high' }), 'pods "high" is forbidden: no PriorityClass with name high was found');
    await refused(t, NS, pod('self-made', { priority: 7 }),
      'pods "self-made" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name');
  });

  it('answers a dry run with the admitted pod and stores nothing', async () => {
    const body = await created(t, NS, pod('dry'), '?dryRun=All');
    expect(body.spec.serviceAccountName).to.equal('default');
    expect(body.spec.volumes[0].name).to.match(/^kube-api-access-/);
    expect((await t.get(podsPath(NS, 'dry'))).status).to.equal(404);
  });

  it('keeps the token volume, tolerations and priority through a PUT of the stored pod', async () => {
    const current = (await t.get(podsPath(NS, 'web'))).body;
    const res = await t.put(podsPath(NS, 'web'), { ...current, metadata: { ...current.metadata, labels: { app: 'web' } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.spec).to.deep.equal(current.spec);
  });
});

describe('Pod admission plugins enabled by flag and configured by file (kubernetes flavor)', () => {
  let t: TestServer;
  let dir: string;
  const PLAIN = 'plain';
  const ANNOTATED = 'annotated';
  const dedicated = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'pod-plugins-'));
    writeFileSync(path.join(dir, 'tolerations.yaml'), [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1',
      'kind: Configuration',
      'default:',
      '- {key: pool, operator: Exists, effect: NoSchedule}',
    ].join('\n'));
    writeFileSync(path.join(dir, 'admission.yaml'), [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: PodNodeSelector',
      '  configuration:',
      '    podNodeSelectorPluginConfig:',
      '      clusterDefaultNodeSelector: pool=general',
      `      ${ANNOTATED}: env=prod,tier=web`,
      '- name: PodTolerationRestriction',
      '  path: tolerations.yaml',
    ].join('\n'));
    t = await startTestServer(['--flavor=kubernetes', `--admission-control-config-file=${path.join(dir, 'admission.yaml')}`,
      '--enable-admission-plugins=AlwaysPullImages,SecurityContextDeny,LimitPodHardAntiAffinityTopology,PodNodeSelector,PodTolerationRestriction,ExtendedResourceToleration']);
    await namespace(t, PLAIN);
    await namespace(t, ANNOTATED, {
      'scheduler.alpha.kubernetes.io/node-selector': 'env=prod',
      'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([dedicated]),
      'scheduler.alpha.kubernetes.io/tolerationsWhitelist': JSON.stringify([
        { key: 'dedicated', operator: 'Exists' }, { operator: 'Exists', effect: 'NoExecute' },
        { key: 'example.com/gpu', operator: 'Exists' },
      ]),
    });
  });
  after(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('forces imagePullPolicy Always, and names the token volume and tolerations with the kubernetes.io domain', async () => {
    const { spec } = await created(t, PLAIN, pod('pull', { containers: [{ name: 'app', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] }));
    expect(spec.containers[0].imagePullPolicy).to.equal('Always');
    expect(spec.containers[0].volumeMounts[0].mountPath).to.equal('/var/run/secrets/kubernetes.io/serviceaccount');
    expect(spec.volumes[0].projected.sources[1].configMap.name).to.equal('kube-root-ca.crt');
    expect(spec.tolerations.map((x: Body) => x.key)).to.include.members(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
  });

  it("merges the cluster default node selector, or the namespace's annotation, and refuses conflicts and selectors outside the whitelist", async () => {
    expect((await created(t, PLAIN, pod('sel-plain', { nodeSelector: { disk: 'ssd' } }))).spec.nodeSelector).to.deep.equal({ pool: 'general', disk: 'ssd' });
    expect((await created(t, ANNOTATED, pod('sel-ns', { nodeSelector: { tier: 'web' } }))).spec.nodeSelector).to.deep.equal({ env: 'prod', tier: 'web' });
    await refused(t, ANNOTATED, pod('sel-conflict', { nodeSelector: { env: 'dev' } }),
      'pods "sel-conflict" is forbidden: pod node label selector conflicts with its namespace node label selector');
    await refused(t, ANNOTATED, pod('sel-outside', { nodeSelector: { tier: 'db' } }),
      'pods "sel-outside" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  });

  it("merges the namespace's or the configuration's default tolerations, and refuses tolerations outside the namespace whitelist", async () => {
    const inNamespace = (await created(t, ANNOTATED, pod('tol-ns'))).spec.tolerations;
    // DefaultTolerationSeconds runs first (Kubernetes' order): the defaults merge after its two.
    expect(inNamespace).to.deep.equal([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      dedicated,
    ]);
    const fromConfig = (await created(t, PLAIN, pod('tol-plain'))).spec.tolerations;
    expect(fromConfig[2]).to.deep.equal({ key: 'pool', operator: 'Exists', effect: 'NoSchedule' });
    const res = await t.post(podsPath(ANNOTATED), pod('tol-outside', { tolerations: [{ key: 'gpu', operator: 'Exists' }] }));
    expect(res.status, res.text).to.equal(403);
    expect(res.body.message).to.equal('pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
    expect((await t.get(podsPath(ANNOTATED, 'tol-outside'))).status).to.equal(404);
  });

  it('tolerates the taints of the extended resources a pod requests', async () => {
    const { spec } = await created(t, ANNOTATED, pod('gpu', { containers: [{ name: 'app', image: 'cuda', resources: { limits: { 'example.com/gpu': '1' }, requests: { 'example.com/gpu': '1' } } }] }));
    expect(spec.tolerations).to.deep.include({ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' });
  });

  it('refuses elevated security-context fields and hard anti-affinity beyond the hostname, as Kubernetes words it', async () => {
    await refused(t, PLAIN, pod('root', { securityContext: { runAsUser: 0 } }), 'pods "root" is forbidden: pod.Spec.SecurityContext.RunAsUser is forbidden');
    await refused(t, PLAIN, pod('selinux', { containers: [{ name: 'app', image: 'nginx', securityContext: { seLinuxOptions: { level: 's0' } } }] }),
      'pods "selinux" is forbidden: SecurityContext.SELinuxOptions is forbidden');
    const antiAffinity = (topologyKey: string) => ({
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey, labelSelector: { matchLabels: { app: 'x' } } }] } },
    });
    await created(t, PLAIN, pod('spread', antiAffinity('kubernetes.io/hostname')));
    await refused(t, PLAIN, pod('zonal', antiAffinity('topology.kubernetes.io/zone')),
      'pods "zonal" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed');
  });
});
