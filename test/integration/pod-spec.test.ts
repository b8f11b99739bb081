/**
 * The whole Pod over HTTPS against a real etcd: a Pod manifest written for Kubernetes (ports,
 * resources, probes, env/envFrom, lifecycle, security contexts, affinity, tolerations, topology
 * spread, a sidecar init container, DNS config, host aliases...) is stored with every field the
 * client sent and exactly Kubernetes' defaults, over JSON and over protobuf; the field selectors
 * read the served fields; invalid specs are answered 422 with Kubernetes' field paths and
 * messages; updates follow ValidatePodUpdate; the Table counts sidecars and readiness gates.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';
import { ApiObject } from '../../lib/scheme/types';

const NS = 'pod-spec';
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const podPath = (name = '', sub = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
type Body = Record<string, any>;
interface Cause { field: string; reason: string; message: string }

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** A Pod as one would write it for Kubernetes, with no field left to its default. */
function fullPod(name: string): Body {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } },
    spec: {
      initContainers: [
        { name: 'migrate', image: 'registry.example/migrate:2.1', command: ['/migrate', '--once'] },
        { name: 'proxy', image: 'registry.example/proxy:1.4', restartPolicy: 'Always', ports: [{ name: 'proxy', containerPort: 15001 }],
          readinessProbe: { tcpSocket: { port: 'proxy' } } },
      ],
      containers: [{
        name: 'app', image: 'registry.example/app:1.0', args: ['--serve'], workingDir: '/srv',
        ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'UDP' }],
        envFrom: [{ configMapRef: { name: 'app-config' }, prefix: 'CFG_' }, { secretRef: { name: 'app-secret', optional: true } }],
        env: [{ name: 'MODE', value: 'prod' }, { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m' } },
        livenessProbe: { httpGet: { port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'live' }] }, initialDelaySeconds: 5 },
        readinessProbe: { exec: { command: ['cat', '/ready'] }, periodSeconds: 5 },
        startupProbe: { grpc: { port: 9090 }, failureThreshold: 30 },
        lifecycle: { postStart: { exec: { command: ['/hook'] } }, preStop: { sleep: { seconds: 5 } } },
        securityContext: {
          runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, seccompProfile: { type: 'RuntimeDefault' },
        },
        stdin: true, tty: true,
      }],
      nodeSelector: { 'disktype': 'ssd' },
      activeDeadlineSeconds: 3600,
      hostname: 'web-0', subdomain: 'web',
      securityContext: { fsGroup: 2000, supplementalGroups: [3000], sysctls: [{ name: 'net.core.somaxconn', value: '1024' }], fsGroupChangePolicy: 'OnRootMismatch' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] } }],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname', matchLabelKeys: ['pod-template-hash'] } }],
        },
      },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
      hostAliases: [{ ip: '10.0.0.9', hostnames: ['db.local'] }],
      priorityClassName: 'high',
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['10.96.0.10'], searches: ['svc.cluster.local'], options: [{ name: 'ndots', value: '2' }] },
      readinessGates: [{ conditionType: 'example.com/ready' }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, minDomains: 2 }],
      os: { name: 'linux' },
      schedulingGates: [{ name: 'example.com/quota' }],
      imagePullSecrets: [{ name: 'registry' }],
    },
  };
}

/** `fullPod` as Kubernetes stores it: the client's fields and SetObjectDefaults_Pod's. */
function expectedSpec(pod: Body): Body {
  const spec = clone(pod.spec);
  const containerDefaults = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' };
  const [migrate, proxy] = spec.initContainers;
  Object.assign(migrate, containerDefaults, { resources: {} });
  Object.assign(proxy, containerDefaults, { resources: {} });
  proxy.ports[0].protocol = 'TCP';
  Object.assign(proxy.readinessProbe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  const app = spec.containers[0];
  Object.assign(app, containerDefaults);
  app.ports[0].protocol = 'TCP';
  app.env[1].valueFrom.fieldRef.apiVersion = 'v1';
  app.resources.requests.memory = '256Mi';
  Object.assign(app.livenessProbe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  Object.assign(app.livenessProbe.httpGet, { path: '/', scheme: 'HTTP' });
  Object.assign(app.readinessProbe, { timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  Object.assign(app.startupProbe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1 });
  app.startupProbe.grpc.service = '';
  return {
    ...spec, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', enableServiceLinks: true,
  };
}

function expectInvalid(res: HttpResponse, causes: Array<Partial<Cause>>): void {
  expect(res.status, res.text).to.equal(422);
  expect(res.body).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
  const got: Cause[] = res.body.details.causes;
  for (const want of causes) {
    expect(got.some((c) => Object.entries(want).every(([k, v]) => c[k as keyof Cause] === v)), `${JSON.stringify(want)} in ${res.text}`).to.equal(true);
  }
}

describe('the whole Pod spec', () => {
  let t: TestServer;
  before(async () => {
    // Exact storage: the plugins that add to a pod (service account volume, tolerations, priority) stay out,
    // and RuntimeClass, which refuses a class that does not exist (403) before validation sees its name.
    t = await startTestServer(['--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds,Priority,RuntimeClass']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('stores a Kubernetes Pod manifest unchanged, with exactly Kubernetes\' defaults (JSON)', async () => {
    const pod = fullPod('full-json');
    const res = await t.post(podPath(), pod);
    expect(res.status, res.text).to.equal(201);
    expect(res.headers.warning ?? '').to.not.contain('unknown field');
    expect(res.body.spec).to.deep.equal(expectedSpec(pod));
    expect(res.body.status).to.deep.equal({ phase: 'Pending', qosClass: 'Burstable' });
    expect((await t.get(podPath('full-json'))).body.spec).to.deep.equal(expectedSpec(pod));
  });

  it('round-trips the whole Pod over protobuf', async () => {
    const pod = fullPod('full-pb');
    const res = await t.request('POST', podPath(), { raw: encodeProtobuf(pod as ApiObject), headers: { 'content-type': K8S_PB, accept: K8S_PB } });
    expect(res.status, res.text).to.equal(201);
    const created = decodeProtobuf(res.raw!) as Body;
    expect(created.spec).to.deep.equal(expectedSpec(pod));
    const read = await t.request('GET', podPath('full-pb'), { headers: { accept: K8S_PB } });
    expect((decodeProtobuf(read.raw!) as Body).spec).to.deep.equal((await t.get(podPath('full-pb'))).body.spec);
  });

  it('gives a Pod with limits only Guaranteed QoS, requests copied from limits', async () => {
    const res = await t.post(podPath(), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'guaranteed' },
      spec: { containers: [{ name: 'a', image: 'busybox', resources: { limits: { cpu: '0.5', memory: '1Gi' } } }] } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.containers[0].resources).to.deep.equal({ limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } });
    expect(res.body.spec.containers[0].imagePullPolicy).to.equal('Always');
    expect(res.body.spec.securityContext).to.deep.equal({});
    expect(res.body.status.qosClass).to.equal('Guaranteed');
  });

  it('defaults host ports on the host network and selects by spec.hostNetwork and spec.schedulerName', async () => {
    const res = await t.post(podPath(), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hostnet' },
      spec: { hostNetwork: true, containers: [{ name: 'a', image: 'busybox:1', ports: [{ containerPort: 53, protocol: 'UDP' }] }] } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.containers[0].ports).to.deep.equal([{ containerPort: 53, hostPort: 53, protocol: 'UDP' }]);
    const names = async (selector: string) => (await t.get(`${podPath()}?fieldSelector=${encodeURIComponent(selector)}`)).body.items.map((p: Body) => p.metadata.name);
    expect(await names('spec.hostNetwork=true')).to.deep.equal(['hostnet']);
    expect(await names('spec.schedulerName=default-scheduler')).to.include.members(['hostnet', 'guaranteed']);
  });

  describe('invalid Pods (422 with Kubernetes\' paths and messages)', () => {
    const base = (spec: Body): Body => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [{ name: 'a', image: 'busybox:1' }], ...spec } });
    const c = (extra: Body) => ({ containers: [{ name: 'a', image: 'busybox:1', ...extra }] });
    const cases: Array<[string, Body, Array<Partial<Cause>>]> = [
      ['a port out of range', c({ ports: [{ containerPort: 70000 }] }),
        [{ field: 'spec.containers[0].ports[0].containerPort', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }]],
      ['an unknown protocol', c({ ports: [{ containerPort: 80, protocol: 'HTTP' }] }),
        [{ field: 'spec.containers[0].ports[0].protocol', reason: 'FieldValueNotSupported' }]],
      ['two ports of one name', c({ ports: [{ name: 'web', containerPort: 80 }, { name: 'web', containerPort: 81 }] }),
        [{ field: 'spec.containers[0].ports[1].name', reason: 'FieldValueDuplicate' }]],
      ['a port name that is no IANA service name', c({ ports: [{ name: 'Web_Port', containerPort: 80 }] }),
        [{ field: 'spec.containers[0].ports[0].name', message: 'Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)' }]],
      ['a request above its limit', c({ resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }),
        [{ field: 'spec.containers[0].resources.requests', message: 'Invalid value: "2": must be less than or equal to cpu limit of 1' }]],
      ['a probe with two handlers', c({ livenessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } }),
        [{ field: 'spec.containers[0].livenessProbe.tcpSocket', message: 'Forbidden: may not specify more than 1 handler type' }]],
      ['a liveness probe with successThreshold 2', c({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }),
        [{ field: 'spec.containers[0].livenessProbe.successThreshold', message: 'Invalid value: 2: must be 1' }]],
      ['a probe without a handler', c({ readinessProbe: { periodSeconds: 3 } }),
        [{ field: 'spec.containers[0].readinessProbe', message: 'Required value: must specify a handler type' }]],
      ['a toleration with Exists and a value', { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
        [{ field: 'spec.tolerations[0].operator', reason: 'FieldValueInvalid' }]],
      ['tolerationSeconds without NoExecute', { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }] },
        [{ field: 'spec.tolerations[0].effect', message: 'Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set' }]],
      ['an unknown toleration effect', { tolerations: [{ key: 'k', operator: 'Exists', effect: 'Never' }] },
        [{ field: 'spec.tolerations[0].effect', reason: 'FieldValueNotSupported' }]],
      ['an unknown procMount', c({ securityContext: { procMount: 'Weird' } }),
        [{ field: 'spec.containers[0].securityContext.procMount', reason: 'FieldValueNotSupported' }]],
      ['a Localhost seccomp profile without a path', { securityContext: { seccompProfile: { type: 'Localhost' } } },
        [{ field: 'spec.securityContext.seccompProfile.localhostProfile', message: 'Required value: must be set when seccomp type is Localhost' }]],
      ['a hostPort unlike its containerPort on the host network', { hostNetwork: true, ...c({ ports: [{ containerPort: 80, hostPort: 8080 }] }) },
        [{ field: 'spec.containers[0].ports[0].hostPort', message: 'Invalid value: 8080: must match `containerPort` when `hostNetwork` is true' }]],
      ['an init container named like a container', { initContainers: [{ name: 'a', image: 'busybox:1' }] },
        [{ field: 'spec.initContainers[0].name', reason: 'FieldValueDuplicate' }]],
      ['a probe on a plain init container', { initContainers: [{ name: 'i', image: 'busybox:1', livenessProbe: { exec: { command: ['true'] } } }] },
        [{ field: 'spec.initContainers[0].livenessProbe', message: 'Forbidden: may not be set for init containers without restartPolicy=Always' }]],
      ['restartPolicy on a regular container', c({ restartPolicy: 'Always' }),
        [{ field: 'spec.containers[0].restartPolicy', message: 'Forbidden: may not be set for non-init containers' }]],
      ['ephemeral containers on create', { ephemeralContainers: [{ name: 'debug', image: 'busybox:1' }] },
        [{ field: 'spec.ephemeralContainers', message: 'Forbidden: cannot be set on create' }]],
      ['dnsPolicy None without nameservers', { dnsPolicy: 'None', dnsConfig: { searches: ['a.b'] } },
        [{ field: 'spec.dnsConfig.nameservers', message: 'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None' }]],
      ['four nameservers', { dnsConfig: { nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4'] } },
        [{ field: 'spec.dnsConfig.nameservers', reason: 'FieldValueInvalid' }]],
      ['a host alias that is no IP', { hostAliases: [{ ip: 'db', hostnames: ['db.local'] }] },
        [{ field: 'spec.hostAliases[0].ip', reason: 'FieldValueInvalid' }]],
      ['activeDeadlineSeconds 0', { activeDeadlineSeconds: 0 },
        [{ field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 0: must be between 1 and 2147483647, inclusive' }]],
      ['an unknown os', { os: { name: 'plan9' } }, [{ field: 'spec.os.name', reason: 'FieldValueNotSupported' }]],
      ['a runtimeClassName that is no DNS subdomain', { runtimeClassName: 'Fast_Class' }, [{ field: 'spec.runtimeClassName', reason: 'FieldValueInvalid' }]],
      ['an affinity weight of 0', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { topologyKey: 'zone' } }] } } },
        [{ field: 'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight', message: 'Invalid value: 0: must be in the range 1-100' }]],
      ['a pod affinity term without topologyKey', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {} }] } } },
        [{ field: 'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', message: 'Required value: can not be empty' }]],
      ['a topology spread with maxSkew 0', { topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] },
        [{ field: 'spec.topologySpreadConstraints[0].maxSkew', message: 'Invalid value: 0: must be greater than zero' }]],
      ['a nodeName while scheduling gates remain', { nodeName: 'n1', schedulingGates: [{ name: 'g' }] },
        [{ field: 'spec.nodeName', message: 'Forbidden: cannot be set until all schedulingGates have been cleared' }]],
    ];
    for (const [what, spec, causes] of cases) {
      it(`rejects ${what}`, async () => {
        const before = (await t.get(podPath())).body.metadata.resourceVersion;
        expectInvalid(await t.post(podPath(), base(spec)), causes);
        expect((await t.get(podPath())).body.metadata.resourceVersion).to.equal(before);
      });
    }
  });

  describe('updates (ValidatePodUpdate)', () => {
    const current = async (name: string): Promise<Body> => (await t.get(podPath(name))).body;

    it('allows images, a lower activeDeadlineSeconds, added tolerations and removed scheduling gates', async () => {
      const pod = await current('full-json');
      pod.spec.containers[0].image = 'registry.example/app:1.1';
      pod.spec.initContainers[0].image = 'registry.example/migrate:2.2';
      pod.spec.activeDeadlineSeconds = 1800;
      pod.spec.tolerations.push({ key: 'extra', operator: 'Exists' });
      pod.spec.tolerations[1].tolerationSeconds = 120;
      pod.spec.schedulingGates = [];
      const res = await t.put(podPath('full-json'), pod);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.tolerations).to.have.length(3);
      expect(res.body.spec.schedulingGates ?? []).to.deep.equal([]);
    });

    it('rejects a raised activeDeadlineSeconds, a removed toleration, a new gate and a changed port', async () => {
      const pod = await current('full-pb');
      const tries: Array<[(p: Body) => void, Partial<Cause>]> = [
        [(p) => { p.spec.activeDeadlineSeconds = 7200; }, { field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 7200: must be less than or equal to previous value' }],
        [(p) => { p.spec.tolerations = [p.spec.tolerations[0]]; }, { field: 'spec.tolerations', message: 'Forbidden: existing toleration can not be modified except its tolerationSeconds' }],
        [(p) => { p.spec.schedulingGates.push({ name: 'example.com/other' }); }, { field: 'spec.schedulingGates[1].name', reason: 'FieldValueForbidden' }],
        [(p) => { p.spec.containers[0].ports[0].containerPort = 9090; }, { field: 'spec', reason: 'FieldValueForbidden' }],
      ];
      for (const [change, cause] of tries) {
        const body = clone(pod);
        change(body);
        const res = await t.put(podPath('full-pb'), body);
        expectInvalid(res, [cause]);
      }
      const spec = (await current('full-pb')).spec;
      expect(spec).to.deep.equal(pod.spec);
      const forbidden = await t.put(podPath('full-pb'), { ...pod, spec: { ...pod.spec, hostname: 'other' } });
      expect(forbidden.body.message).to.contain('spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)');
    });
  });

  it('prints READY with sidecars and READINESS GATES in the Table', async () => {
    const pod = await current();
    async function current(): Promise<Body> { return (await t.get(podPath('full-json'))).body; }
    pod.status = {
      phase: 'Running', podIPs: [{ ip: '10.1.2.3' }], qosClass: 'Burstable',
      conditions: [{ type: 'Initialized', status: 'True' }, { type: 'example.com/ready', status: 'True' }],
      initContainerStatuses: [
        { name: 'migrate', ready: false, restartCount: 0, image: 'm', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'proxy', ready: true, started: true, restartCount: 1, image: 'p', imageID: '', state: { running: {} } },
      ],
      containerStatuses: [{ name: 'app', ready: true, restartCount: 2, image: 'a', imageID: '', state: { running: {} } }],
    };
    expect((await t.put(podPath('full-json', 'status'), pod)).status).to.equal(200);
    const table = await t.get(podPath('full-json'), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    const cells = table.body.rows[0].cells;
    expect(cells.slice(1, 4)).to.deep.equal(['2/2', 'Running', '3']);
    expect(cells.slice(5)).to.deep.equal(['10.1.2.3', '<none>', '<none>', '1/1']);
  });
});
