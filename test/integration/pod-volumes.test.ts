/**
 * Pods over HTTPS against a real etcd: one Pod using every volume source of the spec (with the
 * defaults applied), each volume and container rule as an invalid variant answered 422 with the
 * exact field path and reason (store unchanged), the status sub-resource, DELETE answering the
 * Pod, discovery and the Table columns.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer, untilStoreQuiet, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';

const NS = 'pod-volumes';
const podPath = (name = '', sub = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

type Body = Record<string, any>;
interface Cause { field: string; reason: string }

const container = (extra: Body = {}): Body => ({ name: 'app', image: 'registry.example/app:1.0', ...extra });
const pod = (name: string, spec: Body = {}, metadata: Body = {}): Body => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [container()], ...spec },
});
const withVolume = (volume: Body, extra: Body = {}): Body => ({ volumes: [{ name: 'v', ...volume }], ...extra });
const claimSpec = (extra: Body = {}): Body => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra });

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expect(res.status, res.text).to.equal(422);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
  expect(res.body.details.kind).to.equal('Pod');
  expect(res.body.details.causes.map((c: Cause) => ({ field: c.field, reason: c.reason }))).to.have.deep.members(causes);
}

describe('Pod volumes and status', () => {
  let t: TestServer;
  before(async () => {
    // Pod storage and validation: the ServiceAccount plugin (its account lookup and token volume) is the admission suite's.
    // Without background writes that would move the store's revision under the 'nothing stored'
    // checks: the namespace controllers' (default account, root-CA ConfigMap) and the Lease.
    t = await startTestServer(['--disable-admission-plugins=ServiceAccount', WITHOUT_NAMESPACE_DEFAULTS, '--leader-elect=false', '--endpoint-reconciler-type=none']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    await untilStoreQuiet(t, podPath());
  });
  after(async () => { await t?.stop(); });

  /** A write that must fail, with the pod list's resourceVersion unchanged around it. */
  async function rejected(write: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const before = (await t.get(podPath())).body.metadata.resourceVersion;
    const res = await write();
    expect((await t.get(podPath())).body.metadata.resourceVersion, 'the failed write changed the store').to.equal(before);
    return res;
  }

  describe('invalid Pods (422, nothing stored)', () => {
    const V = 'spec.volumes[0]';
    const longName = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(50)}`;
    const cases: Array<[string, Body, Cause[], string?]> = [
      // exactly one source
      ['a volume with no source', withVolume({}), [{ field: V, reason: 'FieldValueRequired' }]],
      ['a volume with two sources (the later one is reported)', withVolume({ secret: { secretName: 's' }, configMap: { name: 'c' } }),
        [{ field: `${V}.configMap`, reason: 'FieldValueForbidden' }]],
      ['a volume with three sources', withVolume({ emptyDir: {}, hostPath: { path: '/x' }, csi: { driver: 'd.example' } }),
        [{ field: `${V}.hostPath`, reason: 'FieldValueForbidden' }, { field: `${V}.csi`, reason: 'FieldValueForbidden' }]],
      ['downwardAPI as a second source (Kubernetes spells it downwarAPI)', withVolume({ emptyDir: {}, downwardAPI: {} }),
        [{ field: `${V}.downwarAPI`, reason: 'FieldValueForbidden' }]],
      // names
      ['a volume without a name', { volumes: [{ emptyDir: {} }] }, [{ field: `${V}.name`, reason: 'FieldValueRequired' }]],
      ['a volume name that is no DNS label', { volumes: [{ name: 'Data_1', emptyDir: {} }] }, [{ field: `${V}.name`, reason: 'FieldValueInvalid' }]],
      ['two volumes of one name', { volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] },
        [{ field: 'spec.volumes[1].name', reason: 'FieldValueDuplicate' }]],
      // projected family
      ['a configMap without a name', withVolume({ configMap: {} }), [{ field: `${V}.configMap.name`, reason: 'FieldValueRequired' }]],
      ['a secret without secretName', withVolume({ secret: {} }), [{ field: `${V}.secret.secretName`, reason: 'FieldValueRequired' }]],
      ['defaultMode above 0777', withVolume({ configMap: { name: 'c', defaultMode: 0o1000 } }), [{ field: `${V}.configMap.defaultMode`, reason: 'FieldValueInvalid' }]],
      ['a negative defaultMode', withVolume({ secret: { secretName: 's', defaultMode: -1 } }), [{ field: `${V}.secret.defaultMode`, reason: 'FieldValueInvalid' }]],
      ['a downwardAPI defaultMode of 512', withVolume({ downwardAPI: { defaultMode: 512 } }), [{ field: `${V}.downwardAPI.defaultMode`, reason: 'FieldValueInvalid' }]],
      ['a projected defaultMode of 1000', withVolume({ projected: { sources: [], defaultMode: 1000 } }), [{ field: `${V}.projected.defaultMode`, reason: 'FieldValueInvalid' }]],
      ['an item mode above 0777', withVolume({ configMap: { name: 'c', items: [{ key: 'k', path: 'p', mode: 0o1000 }] } }),
        [{ field: `${V}.configMap.items[0].mode`, reason: 'FieldValueInvalid' }]],
      ['an item without key', withVolume({ configMap: { name: 'c', items: [{ path: 'p' }] } }), [{ field: `${V}.configMap.items[0].key`, reason: 'FieldValueRequired' }]],
      ['an item without path', withVolume({ secret: { secretName: 's', items: [{ key: 'k' }] } }), [{ field: `${V}.secret.items[0].path`, reason: 'FieldValueRequired' }]],
      ['an item path with ".."', withVolume({ configMap: { name: 'c', items: [{ key: 'k', path: 'a/../../etc' }] } }),
        [{ field: `${V}.configMap.items[0].path`, reason: 'FieldValueInvalid' }]],
      ['an absolute item path', withVolume({ configMap: { name: 'c', items: [{ key: 'k', path: '/etc/passwd' }] } }),
        [{ field: `${V}.configMap.items[0].path`, reason: 'FieldValueInvalid' }]],
      ['an item path starting with ".."', withVolume({ secret: { secretName: 's', items: [{ key: 'k', path: '..data' }] } }),
        [{ field: `${V}.secret.items[0].path`, reason: 'FieldValueInvalid' }]],
      ['a downwardAPI file path with ".." (reported on the source)', withVolume({ downwardAPI: { items: [{ path: '../ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }),
        [{ field: `${V}.downwardAPI.path`, reason: 'FieldValueInvalid' }]],
      ['a downwardAPI field a volume cannot expose', withVolume({ downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'spec.nodeName' } }] } }),
        [{ field: `${V}.downwardAPI.fieldRef.fieldPath`, reason: 'FieldValueNotSupported' }]],
      ['a downwardAPI file with fieldRef and resourceFieldRef', withVolume({ downwardAPI: { items: [{
        path: 'x', fieldRef: { fieldPath: 'metadata.name' }, resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' },
      }] } }), [{ field: `${V}.downwardAPI`, reason: 'FieldValueInvalid' }]],
      ['a downwardAPI file with neither', withVolume({ downwardAPI: { items: [{ path: 'x' }] } }), [{ field: `${V}.downwardAPI`, reason: 'FieldValueRequired' }]],
      ['a volume resourceFieldRef without containerName', withVolume({ downwardAPI: { items: [{ path: 'x', resourceFieldRef: { resource: 'limits.cpu' } }] } }),
        [{ field: `${V}.downwardAPI.resourceFieldRef.containerName`, reason: 'FieldValueRequired' }]],
      ['a token that expires in less than 10 minutes', withVolume({ projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 599 } }] } }),
        [{ field: `${V}.projected.sources[0].serviceAccountToken.expirationSeconds`, reason: 'FieldValueInvalid' }]],
      ['a token lifetime above 2^32 seconds', withVolume({ projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 2 ** 32 + 1 } }] } }),
        [{ field: `${V}.projected.sources[0].serviceAccountToken.expirationSeconds`, reason: 'FieldValueInvalid' }]],
      ['a token without a path (reported on the projected source)', withVolume({ projected: { sources: [{ serviceAccountToken: {} }] } }),
        [{ field: `${V}.projected.path`, reason: 'FieldValueRequired' }]],
      ['an absolute token path', withVolume({ projected: { sources: [{ serviceAccountToken: { path: '/token' } }] } }),
        [{ field: `${V}.projected.path`, reason: 'FieldValueInvalid' }]],
      ['a projection source with two types', withVolume({ projected: { sources: [{ configMap: { name: 'c' }, secret: { name: 's' } }] } }),
        [{ field: `${V}.projected.sources[0]`, reason: 'FieldValueForbidden' }]],
      ['a projected secret without a name', withVolume({ projected: { sources: [{ secret: {} }] } }),
        [{ field: `${V}.projected.sources[0].secret.name`, reason: 'FieldValueRequired' }]],
      ['two projections writing one path', withVolume({ projected: { sources: [
        { configMap: { name: 'c', items: [{ key: 'a', path: 'same' }] } }, { secret: { name: 's', items: [{ key: 'b', path: 'same' }] } },
      ] } }), [{ field: `${V}.projected`, reason: 'FieldValueInvalid' }]],
      // persistent-style sources
      ['csi without a driver', withVolume({ csi: {} }), [{ field: `${V}.csi.driver`, reason: 'FieldValueRequired' }, { field: `${V}.csi.driver`, reason: 'FieldValueInvalid' }]],
      ['a csi driver name that is no DNS subdomain', withVolume({ csi: { driver: 'not a driver' } }), [{ field: `${V}.csi.driver`, reason: 'FieldValueInvalid' }]],
      ['fc with both targetWWNs and wwids', withVolume({ fc: { targetWWNs: ['w'], wwids: ['i'], lun: 1 } }), [{ field: `${V}.fc.targetWWNs`, reason: 'FieldValueInvalid' }]],
      ['fc with neither targetWWNs nor wwids', withVolume({ fc: {} }), [{ field: `${V}.fc.targetWWNs`, reason: 'FieldValueRequired' }]],
      ['fc targetWWNs without lun', withVolume({ fc: { targetWWNs: ['w'] } }), [{ field: `${V}.fc.lun`, reason: 'FieldValueRequired' }]],
      ['an fc lun above 255', withVolume({ fc: { targetWWNs: ['w'], lun: 256 } }), [{ field: `${V}.fc.lun`, reason: 'FieldValueInvalid' }]],
      ['flexVolume without a driver', withVolume({ flexVolume: {} }), [{ field: `${V}.flexVolume.driver`, reason: 'FieldValueRequired' }]],
      ['a flexVolume option in a reserved namespace', withVolume({ flexVolume: { driver: 'x/y', options: { 'kubernetes.io/secret': 'x' } } }),
        [{ field: `${V}.flexVolume.options[kubernetes.io/secret]`, reason: 'FieldValueInvalid' }]],
      ['iscsi without targetPortal and iqn', withVolume({ iscsi: { lun: 0 } }),
        [{ field: `${V}.iscsi.targetPortal`, reason: 'FieldValueRequired' }, { field: `${V}.iscsi.iqn`, reason: 'FieldValueRequired' }]],
      ['an iscsi iqn of the wrong form', withVolume({ iscsi: { targetPortal: '10.0.0.1', iqn: 'disk1', lun: 0 } }), [{ field: `${V}.iscsi.iqn`, reason: 'FieldValueInvalid' }]],
      ['iscsi CHAP without secretRef', withVolume({ iscsi: { targetPortal: '10.0.0.1', iqn: 'iqn.2001-04.com.example:d', lun: 0, chapAuthSession: true } }),
        [{ field: `${V}.iscsi.secretRef`, reason: 'FieldValueRequired' }]],
      ['photonPersistentDisk without pdID', withVolume({ photonPersistentDisk: {} }), [{ field: `${V}.photonPersistentDisk.pdID`, reason: 'FieldValueRequired' }]],
      ['portworxVolume without volumeID', withVolume({ portworxVolume: {} }), [{ field: `${V}.portworxVolume.volumeID`, reason: 'FieldValueRequired' }]],
      ['quobyte without volume', withVolume({ quobyte: { registry: 'q:7861' } }), [{ field: `${V}.quobyte.volume`, reason: 'FieldValueRequired' }]],
      ['a quobyte registry that is no host:port list', withVolume({ quobyte: { registry: 'q1', volume: 'v' } }), [{ field: `${V}.quobyte.registry`, reason: 'FieldValueInvalid' }]],
      ['scaleIO without gateway and system', withVolume({ scaleIO: { volumeName: 'v', secretRef: { name: 's' } } }),
        [{ field: `${V}.scaleIO.gateway`, reason: 'FieldValueRequired' }, { field: `${V}.scaleIO.system`, reason: 'FieldValueRequired' }]],
      ['a storageos volumeName that is no DNS label', withVolume({ storageos: { volumeName: 'Vol_1' } }), [{ field: `${V}.storageos.volumeName`, reason: 'FieldValueInvalid' }]],
      ['vsphereVolume without volumePath', withVolume({ vsphereVolume: {} }), [{ field: `${V}.vsphereVolume.volumePath`, reason: 'FieldValueRequired' }]],
      ['flocker with datasetName and datasetUUID', withVolume({ flocker: { datasetName: 'a', datasetUUID: 'b' } }), [{ field: `${V}.flocker`, reason: 'FieldValueInvalid' }]],
      ['flocker with neither', withVolume({ flocker: {} }), [{ field: `${V}.flocker`, reason: 'FieldValueRequired' }]],
      ['gitRepo without repository', withVolume({ gitRepo: {} }), [{ field: `${V}.gitRepo.repository`, reason: 'FieldValueRequired' }]],
      ['a gitRepo directory with ".."', withVolume({ gitRepo: { repository: 'r', directory: '../up' } }), [{ field: `${V}.gitRepo.directory`, reason: 'FieldValueInvalid' }]],
      ['hostPath of an unknown type', withVolume({ hostPath: { path: '/x', type: 'Pipe' } }), [{ field: `${V}.hostPath.type`, reason: 'FieldValueNotSupported' }]],
      ['persistentVolumeClaim without claimName', withVolume({ persistentVolumeClaim: {} }), [{ field: `${V}.persistentVolumeClaim.claimName`, reason: 'FieldValueRequired' }]],
      // ephemeral
      ['ephemeral without volumeClaimTemplate', withVolume({ ephemeral: {} }), [{ field: `${V}.ephemeral.volumeClaimTemplate`, reason: 'FieldValueRequired' }]],
      ['a claim template with a name in its metadata', withVolume({ ephemeral: { volumeClaimTemplate: { metadata: { name: 'x', labels: { a: 'b' } }, spec: claimSpec() } } }),
        [{ field: `${V}.ephemeral.volumeClaimTemplate.metadata.name`, reason: 'FieldValueForbidden' }]],
      ['a claim template with finalizers', withVolume({ ephemeral: { volumeClaimTemplate: { metadata: { finalizers: ['a.example/f'] }, spec: claimSpec() } } }),
        [{ field: `${V}.ephemeral.volumeClaimTemplate.metadata.finalizers`, reason: 'FieldValueForbidden' }]],
      ['a claim template with a bad label', withVolume({ ephemeral: { volumeClaimTemplate: { metadata: { labels: { 'a b': 'c' } }, spec: claimSpec() } } }),
        [{ field: `${V}.ephemeral.volumeClaimTemplate.metadata.labels`, reason: 'FieldValueInvalid' }]],
      ['a claim template without access modes', withVolume({ ephemeral: { volumeClaimTemplate: { spec: claimSpec({ accessModes: [] }) } } }),
        [{ field: `${V}.ephemeral.volumeClaimTemplate.spec.accessModes`, reason: 'FieldValueRequired' }]],
      ['a claim template without a storage request', withVolume({ ephemeral: { volumeClaimTemplate: { spec: claimSpec({ resources: {} }) } } }),
        [{ field: `${V}.ephemeral.volumeClaimTemplate.spec.resources[storage]`, reason: 'FieldValueRequired' }]],
      ['a claim name <pod>-<volume> longer than 253 characters', { volumes: [{ name: 'data-volume-xyz', ephemeral: { volumeClaimTemplate: { spec: claimSpec() } } }] },
        [{ field: `${V}.name`, reason: 'FieldValueInvalid' }], longName],
      ['a claim volume naming the claim an ephemeral volume creates', { volumes: [
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: claimSpec() } } },
        { name: 'other', persistentVolumeClaim: { claimName: 'bad-pod-scratch' } },
      ] }, [{ field: 'spec.volumes[1].persistentVolumeClaim.claimName', reason: 'FieldValueInvalid' }], 'bad-pod'],
      // containers
      ['no containers', { containers: [] }, [{ field: 'spec.containers', reason: 'FieldValueRequired' }]],
      ['a container without image', { containers: [{ name: 'app' }] }, [{ field: 'spec.containers[0].image', reason: 'FieldValueRequired' }]],
      ['a container name that is no DNS label', { containers: [container({ name: 'App' })] }, [{ field: 'spec.containers[0].name', reason: 'FieldValueInvalid' }]],
      ['two containers of one name', { containers: [container(), container()] }, [{ field: 'spec.containers[1].name', reason: 'FieldValueDuplicate' }]],
      ['a mount of an unknown volume', { containers: [container({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] })] },
        [{ field: 'spec.containers[0].volumeMounts[0].name', reason: 'FieldValueNotFound' }]],
      ['a mount of an invalid volume', { volumes: [{ name: 'v', configMap: {} }], containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/x' }] })] },
        [{ field: `${V}.configMap.name`, reason: 'FieldValueRequired' }, { field: 'spec.containers[0].volumeMounts[0].name', reason: 'FieldValueNotFound' }]],
      ['two mounts at one path', { volumes: [{ name: 'a', emptyDir: {} }, { name: 'b', emptyDir: {} }],
        containers: [container({ volumeMounts: [{ name: 'a', mountPath: '/x' }, { name: 'b', mountPath: '/x' }] })] },
      [{ field: 'spec.containers[0].volumeMounts[1].mountPath', reason: 'FieldValueInvalid' }]],
      ['a mount subPath with ".."', withVolume({ emptyDir: {} }, { containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/x', subPath: '../etc' }] })] }),
        [{ field: 'spec.containers[0].volumeMounts.subPath', reason: 'FieldValueInvalid' }]],
      ['an env var name with "="', { containers: [container({ env: [{ name: 'A=B', value: 'x' }] })] }, [{ field: 'spec.containers[0].env[0].name', reason: 'FieldValueInvalid' }]],
      ['an env var with value and valueFrom', { containers: [container({ env: [{ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })] },
        [{ field: 'spec.containers[0].env[0].valueFrom', reason: 'FieldValueInvalid' }]],
      ['an unknown restartPolicy', { restartPolicy: 'Sometimes' }, [{ field: 'spec.restartPolicy', reason: 'FieldValueNotSupported' }]],
      ['a serviceAccountName that is no DNS subdomain', { serviceAccountName: 'Bad Name' }, [{ field: 'spec.serviceAccountName', reason: 'FieldValueInvalid' }]],
      ['a nodeName that is no DNS subdomain', { nodeName: 'node_1' }, [{ field: 'spec.nodeName', reason: 'FieldValueInvalid' }]],
    ];
    for (const [what, spec, causes, name] of cases) {
      it(`rejects ${what}`, async () => {
        const podName = name ?? 'bad-pod';
        const res = await rejected(() => t.post(podPath(), pod(podName, spec)));
        expectInvalid(res, causes);
        expect((await t.get(podPath(podName))).status).to.equal(404);
      });
    }

    it('answers 400 for a body of the wrong JSON types', async () => {
      const res = await rejected(() => t.post(podPath(), pod('bad-pod', { containers: 'app' })));
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ reason: 'BadRequest' });
    });

    it('quotes Kubernetes\' message for a short token lifetime', async () => {
      const res = await t.post(podPath(), pod('bad-pod', withVolume({ projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 60 } }] } })));
      expect(res.body.message).to.equal('Pod "bad-pod" is invalid: spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: '
        + 'Invalid value: 60: may not specify a duration less than 10 minutes');
    });
  });

  describe('status sub-resource', () => {
    const name = 'status-pod';
    let created: Body;
    before(async () => {
      const res = await t.post(podPath(), pod(name, { volumes: [{ name: 'v', emptyDir: {} }] }, { labels: { app: 'web' } }));
      expect(res.status, res.text).to.equal(201);
      created = res.body;
    });

    it('a new Pod starts Pending whatever status the client sent', async () => {
      const res = await t.post(podPath(), { ...pod('status-ignored'), status: { phase: 'Running', podIP: '10.0.0.9' } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.status).to.deep.equal({ phase: 'Pending', qosClass: 'BestEffort' });
      expect(created.status).to.deep.equal({ phase: 'Pending', qosClass: 'BestEffort' });
    });

    it('GET /status answers the Pod', async () => {
      const res = await t.get(podPath(name, 'status'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Pod', apiVersion: 'v1' });
      expect(res.body.metadata.name).to.equal(name);
    });

    it('PUT /status changes only status (spec and labels in the body are ignored)', async () => {
      const current = (await t.get(podPath(name))).body;
      const body = {
        ...current,
        metadata: { ...current.metadata, labels: { app: 'changed' } },
        spec: { ...current.spec, containers: [container({ image: 'other:2', imagePullPolicy: 'IfNotPresent' })] },
        status: {
          phase: 'Running', podIP: '10.1.2.3', qosClass: 'BestEffort',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [{ name: 'app', ready: true, restartCount: 2, image: 'registry.example/app:1.0', imageID: 'sha256:x', state: { running: { startedAt: '2024-01-01T00:00:00Z' } } }],
        },
      };
      const res = await t.put(podPath(name, 'status'), body);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.include({ phase: 'Running', podIP: '10.1.2.3' });
      expect(res.body.status.podIPs).to.deep.equal([{ ip: '10.1.2.3' }]);
      expect(res.body.spec).to.deep.equal(created.spec);
      expect(res.body.metadata.labels).to.deep.equal({ app: 'web' });
      expect((await t.get(podPath(name))).body.status.phase).to.equal('Running');
    });

    it('PATCH /status merges into status only', async () => {
      const res = await t.request('PATCH', podPath(name, 'status'), {
        raw: JSON.stringify({ metadata: { labels: { app: 'patched' } }, status: { message: 'all good' } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.include({ phase: 'Running', message: 'all good' });
      expect(res.body.metadata.labels).to.deep.equal({ app: 'web' });
    });

    it('a write to the Pod keeps the stored status and may change an image', async () => {
      const current = (await t.get(podPath(name))).body;
      const body = { ...current, spec: { ...current.spec, containers: [{ ...current.spec.containers[0], image: 'registry.example/app:2.0' }] }, status: { phase: 'Failed' } };
      const res = await t.put(podPath(name), body);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.containers[0].image).to.equal('registry.example/app:2.0');
      expect(res.body.status).to.deep.equal(current.status);
      const patched = await t.request('PATCH', podPath(name), {
        raw: JSON.stringify({ metadata: { labels: { app: 'web', tier: 'front' } }, status: { phase: 'Succeeded' } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.metadata.labels).to.deep.equal({ app: 'web', tier: 'front' });
      expect(patched.body.status).to.deep.equal(current.status);
    });

    const updates: Array<[string, (p: Body) => Body, Cause[], string?]> = [
      ['a spec change other than an image', (p) => ({ ...p, spec: { ...p.spec, nodeName: 'node-2' } }), [{ field: 'spec', reason: 'FieldValueForbidden' }]],
      ['a new volume', (p) => ({ ...p, spec: { ...p.spec, volumes: [...p.spec.volumes, { name: 'w', emptyDir: {} }] } }), [{ field: 'spec', reason: 'FieldValueForbidden' }]],
      ['an added container', (p) => ({ ...p, spec: { ...p.spec, containers: [...p.spec.containers, container({ name: 'side' })] } }),
        [{ field: 'spec.containers', reason: 'FieldValueForbidden' }]],
      ['a status write changing the QoS class', (p) => ({ ...p, status: { ...p.status, qosClass: 'Guaranteed' } }), [{ field: 'status.qosClass', reason: 'FieldValueInvalid' }], 'status'],
      ['a status write with a pod IP that is no IP', (p) => ({ ...p, status: { ...p.status, podIP: '10.1.2', podIPs: [] } }), [{ field: 'status.podIPs[0]', reason: 'FieldValueInvalid' }], 'status'],
      ['a status write with two IPv4 pod IPs', (p) => ({ ...p, status: { ...p.status, podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] } }),
        [{ field: 'status.podIPs', reason: 'FieldValueInvalid' }], 'status'],
      ['a status write with a condition type that is no qualified name', (p) => ({ ...p, status: { ...p.status, conditions: [{ type: 'bad type!', status: 'True' }] } }),
        [{ field: 'metadata.conditions[0].Type', reason: 'FieldValueInvalid' }], 'status'],
    ];
    for (const [what, change, causes, sub] of updates) {
      it(`rejects ${what} (422), leaving the Pod as it was`, async () => {
        const current = (await t.get(podPath(name))).body;
        const res = await rejected(() => t.put(podPath(name, sub), change(current)));
        expectInvalid(res, causes);
        expect((await t.get(podPath(name))).body).to.deep.equal(current);
      });
    }

    it('prints NAME READY STATUS RESTARTS AGE (and the wide columns) in a Table', async () => {
      const res = await t.get(podPath(), { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.columnDefinitions.map((c: Body) => [c.name, c.priority])).to.deep.equal([
        ['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1],
      ]);
      const row = res.body.rows.find((r: Body) => r.cells[0] === name);
      expect(row.cells.slice(0, 4)).to.deep.equal([name, '1/1', 'Running', '2']);
      expect(row.cells.slice(5)).to.deep.equal(['10.1.2.3', '<none>', '<none>', '<none>']);
      const pending = res.body.rows.find((r: Body) => r.cells[0] === 'status-ignored');
      expect(pending.cells.slice(0, 4)).to.deep.equal(['status-ignored', '0/1', 'Pending', '0']);
    });

    it('DELETE answers the Pod itself', async () => {
      const res = await t.del(podPath('status-ignored'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Pod', apiVersion: 'v1' });
      expect(res.body.metadata.name).to.equal('status-ignored');
      expect((await t.get(podPath('status-ignored'))).status).to.equal(404);
    });
  });

  it('is served under /api/v1 as pods (po, category all) with pods/status', async () => {
    const res = await t.get('/api/v1');
    const pods = res.body.resources.find((r: Body) => r.name === 'pods');
    expect(pods).to.include({ kind: 'Pod', namespaced: true, singularName: 'pod' });
    expect(pods.shortNames).to.deep.equal(['po']);
    expect(pods.categories).to.deep.equal(['all']);
    expect(pods.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    const status = res.body.resources.find((r: Body) => r.name === 'pods/status');
    expect(status).to.include({ kind: 'Pod', namespaced: true });
    expect(status.verbs).to.have.members(['get', 'patch', 'update']);
  });

  describe('a Pod with every volume source of the spec', () => {
    let spec: Body;
    const byName = (n: string) => spec.volumes.find((v: Body) => v.name === n);
    before(async () => {
      const volumes = [
        { name: 'cm', configMap: { name: 'settings', items: [{ key: 'a', path: 'conf/a.txt', mode: 0o400 }], optional: true } },
        { name: 'sec', secret: { secretName: 'creds' } },
        { name: 'dapi', downwardAPI: { items: [
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
          { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
          { path: 'team', fieldRef: { fieldPath: "metadata.annotations['team']" } },
        ] } },
        { name: 'proj', projected: { sources: [
          { serviceAccountToken: { path: 'token', audience: 'vault' } },
          { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          { secret: { name: 'creds', items: [{ key: 'u', path: 'user' }] } },
        ] } },
        { name: 'csi', csi: { driver: 'csi.example.com', volumeAttributes: { size: '1' }, nodePublishSecretRef: { name: 'csi-creds' } } },
        { name: 'fc', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } },
        { name: 'fc-wwids', fc: { wwids: ['3600508b400105e210000900000490000'] } },
        { name: 'flex', flexVolume: { driver: 'example/lvm', options: { vg: 'data' } } },
        { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0 } },
        { name: 'photon', photonPersistentDisk: { pdID: 'pd-1' } },
        { name: 'pwx', portworxVolume: { volumeID: 'pwx-1' } },
        { name: 'quobyte', quobyte: { registry: 'q1.example:7861,q2.example:7861', volume: 'vol' } },
        { name: 'scaleio', scaleIO: { gateway: 'https://sio.example', system: 'sys', volumeName: 'vol', secretRef: { name: 'sio' } } },
        { name: 'storageos', storageos: { volumeName: 'vol-1' } },
        { name: 'vsphere', vsphereVolume: { volumePath: '[ds] vols/v1.vmdk' } },
        { name: 'flocker', flocker: { datasetName: 'ds' } },
        { name: 'eph', ephemeral: { volumeClaimTemplate: { metadata: { labels: { app: 'web' } }, spec: claimSpec({ resources: { requests: { storage: '1.5Gi' } } }) } } },
        { name: 'git', gitRepo: { repository: 'https://example.com/repo.git', directory: '.' } },
        { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'host', hostPath: { path: '/var/log' } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'data' } },
      ];
      const mounts = volumes.map((v) => ({ name: v.name, mountPath: `/mnt/${v.name}` }));
      const res = await t.post(podPath(), pod('everything', {
        volumes, serviceAccountName: 'builder', automountServiceAccountToken: false, nodeName: 'node-1',
        imagePullSecrets: [{ name: 'registry' }],
        containers: [container({ image: 'busybox', volumeMounts: mounts, env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })],
      }));
      expect(res.status, res.text).to.equal(201);
      spec = res.body.spec;
      expect((await t.get(podPath('everything'))).body.spec).to.deep.equal(spec);
    });

    it('keeps the workload fields and fills the Pod defaults', () => {
      expect(spec).to.include({
        serviceAccountName: 'builder', serviceAccount: 'builder', automountServiceAccountToken: false, nodeName: 'node-1',
        restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30,
      });
      expect(spec.imagePullSecrets).to.deep.equal([{ name: 'registry' }]);
      expect(spec.containers[0]).to.include({ imagePullPolicy: 'Always' });
      expect(spec.containers[0].env[0].valueFrom.fieldRef).to.deep.equal({ apiVersion: 'v1', fieldPath: 'metadata.name' });
    });

    it('defaults the projected family: mode 0644 (420), token lifetime 3600, fieldRef apiVersion v1', () => {
      expect(byName('cm').configMap).to.deep.equal({ name: 'settings', items: [{ key: 'a', path: 'conf/a.txt', mode: 256 }], optional: true, defaultMode: 420 });
      expect(byName('sec').secret).to.deep.equal({ secretName: 'creds', defaultMode: 420 });
      expect(byName('dapi').downwardAPI.defaultMode).to.equal(420);
      expect(byName('dapi').downwardAPI.items[0].fieldRef).to.deep.equal({ apiVersion: 'v1', fieldPath: 'metadata.labels' });
      const proj = byName('proj').projected;
      expect(proj.defaultMode).to.equal(420);
      // The audience stays as given; an empty one means the API server's identifier when a token is issued.
      expect(proj.sources[0].serviceAccountToken).to.deep.equal({ path: 'token', audience: 'vault', expirationSeconds: 3600 });
      expect(proj.sources[2].downwardAPI.items[0].fieldRef).to.deep.equal({ apiVersion: 'v1', fieldPath: 'metadata.namespace' });
    });

    it('defaults the persistent-style sources per the spec', () => {
      expect(byName('csi').csi).to.include({ driver: 'csi.example.com', readOnly: false }).and.not.have.property('fsType');
      expect(byName('fc').fc).to.include({ fsType: 'ext4', readOnly: false, lun: 2 });
      expect(byName('flex').flexVolume).to.include({ fsType: 'ext4', readOnly: false });
      expect(byName('iscsi').iscsi).to.include({ iscsiInterface: 'default', fsType: 'ext4', readOnly: false });
      expect(byName('photon').photonPersistentDisk).to.deep.equal({ pdID: 'pd-1', fsType: 'ext4' });
      expect(byName('pwx').portworxVolume).to.deep.equal({ volumeID: 'pwx-1', fsType: 'ext4', readOnly: false });
      expect(byName('quobyte').quobyte).to.include({ readOnly: false });
      expect(byName('scaleio').scaleIO).to.include({ fsType: 'xfs', storageMode: 'ThinProvisioned', sslEnabled: false, readOnly: false });
      expect(byName('storageos').storageos).to.include({ fsType: 'ext4', readOnly: false });
      expect(byName('vsphere').vsphereVolume).to.deep.equal({ volumePath: '[ds] vols/v1.vmdk', fsType: 'ext4' });
      expect(byName('flocker').flocker).to.deep.equal({ datasetName: 'ds' });
    });

    it('defaults the claim template and the node-local sources', () => {
      expect(byName('eph').ephemeral.volumeClaimTemplate).to.deep.equal({
        metadata: { labels: { app: 'web' } },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1536Mi' } }, volumeMode: 'Filesystem' },
      });
      expect(byName('host').hostPath).to.deep.equal({ path: '/var/log', type: '' });
      expect(byName('scratch').emptyDir).to.deep.equal({ sizeLimit: '1Gi' });
      expect(byName('git').gitRepo).to.deep.equal({ repository: 'https://example.com/repo.git', directory: '.' });
      expect(byName('claim').persistentVolumeClaim).to.deep.equal({ claimName: 'data' });
    });

    it('an update that changes nothing is accepted (defaults are stable)', async () => {
      const current = (await t.get(podPath('everything'))).body;
      const res = await t.put(podPath('everything'), current);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec).to.deep.equal(spec);
    });
  });
});
