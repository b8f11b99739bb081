/**
 * The storage kinds through HTTPS against a real etcd: PersistentVolumeClaim, PersistentVolume
 * (core/v1) and StorageClass, VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity
 * (storage/v1). One valid object per kind with its defaults; per validation rule an invalid
 * variant answered 422 with the field and reason, leaving the store unchanged; immutability
 * on update; the /status subresources; delete responses; discovery; feature gates.
 */
import { expect } from 'chai';
import { HttpResponse, eventually, startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'default';
type Obj = Record<string, any>;

/** Where each kind lives, as a function of the storage group of the flavor. */
function pathsFor(storage: string) {
  const g = `/apis/${storage}/v1`;
  return {
    pvc: `/api/v1/namespaces/${NS}/persistentvolumeclaims`,
    pv: '/api/v1/persistentvolumes',
    sc: `${g}/storageclasses`,
    va: `${g}/volumeattachments`,
    csidriver: `${g}/csidrivers`,
    csinode: `${g}/csinodes`,
    csc: `${g}/namespaces/${NS}/csistoragecapacities`,
  };
}
type KindKey = keyof ReturnType<typeof pathsFor>;

/** A valid object of each kind, named `name`. */
function valid(kind: KindKey, name: string, storage: string): Obj {
  const sv = `${storage}/v1`;
  switch (kind) {
    case 'pvc': return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.5Gi' } } } };
    case 'pv': return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/vol' } } };
    case 'sc': return { apiVersion: sv, kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/fast' };
    case 'va': return { apiVersion: sv, kind: 'VolumeAttachment', metadata: { name }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } };
    case 'csidriver': return { apiVersion: sv, kind: 'CSIDriver', metadata: { name }, spec: {} };
    case 'csinode': return { apiVersion: sv, kind: 'CSINode', metadata: { name }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.example.com/zone'] }] } };
    case 'csc': return { apiVersion: sv, kind: 'CSIStorageCapacity', metadata: { name }, storageClassName: 'fast', capacity: '100Gi', nodeTopology: { matchLabels: { zone: 'a' } } };
  }
}

const causes = (res: HttpResponse): Array<{ field: string; reason: string; message: string }> => res.body?.details?.causes ?? [];

function expectCause(res: HttpResponse, field: string, reason: string, message?: string): void {
  expect(res.status, res.text).to.equal(422);
  expect(res.body.reason).to.equal('Invalid');
  const hit = causes(res).find((c) => c.field === field && c.reason === reason);
  expect(hit, `no ${reason} at ${field} in ${JSON.stringify(causes(res))}`).to.not.equal(undefined);
  if (message) expect(hit!.message).to.contain(message);
}

describe('storage kinds', function () {
  this.timeout(60_000);
  let t: TestServer;
  let storage: string;
  let paths: ReturnType<typeof pathsFor>;
  let seq = 0;
  const name = (prefix: string) => `${prefix}-${++seq}`;

  before(async () => {
    // RecoverVolumeExpansionFailure is beta (on) in 1.32: off here, so the gate-off behaviour is seen.
    t = await startTestServer(['--feature-gates=RecoverVolumeExpansionFailure=false']);
    storage = t.server.naming.group('storage');
    paths = pathsFor(storage);
  });
  after(async () => { await t?.stop(); });

  const create = async (kind: KindKey, obj: Obj) => t.post(paths[kind], obj);
  const get = async (kind: KindKey, n: string, sub = '') => t.get(`${paths[kind]}/${n}${sub}`);
  async function created(kind: KindKey, obj: Obj): Promise<Obj> {
    const res = await create(kind, obj);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  async function mutated(kind: KindKey, obj: Obj, change: (o: Obj) => void, sub = ''): Promise<HttpResponse> {
    const current = (await get(kind, obj.metadata.name)).body;
    change(current);
    return t.put(`${paths[kind]}/${obj.metadata.name}${sub}`, current);
  }

  describe('valid objects are created with Kubernetes\' defaults', () => {
    const cases: Array<[KindKey, (o: Obj) => void]> = [
      ['pvc', (o) => {
        expect(o.spec.volumeMode).to.equal('Filesystem');
        expect(o.spec.resources.requests.storage).to.equal('1536Mi');
        expect(o.status).to.deep.equal({ phase: 'Pending' });
      }],
      ['pv', (o) => {
        expect(o.spec.persistentVolumeReclaimPolicy).to.equal('Retain');
        expect(o.spec.volumeMode).to.equal('Filesystem');
        expect(o.spec.hostPath).to.deep.equal({ path: '/data/vol', type: '' });
        expect(o.status).to.deep.equal({ phase: 'Pending' });
      }],
      ['sc', (o) => {
        expect(o.reclaimPolicy).to.equal('Delete');
        expect(o.volumeBindingMode).to.equal('Immediate');
      }],
      ['va', (o) => expect(o.status).to.deep.equal({ attached: false })],
      ['csidriver', (o) => expect(o.spec).to.deep.equal({
        attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType',
        volumeLifecycleModes: ['Persistent'], requiresRepublish: false,
      })],
      ['csinode', (o) => expect(o.spec.drivers[0].nodeID).to.equal('node-1')],
      ['csc', (o) => expect(o.capacity).to.equal('100Gi')],
    ];
    for (const [kind, check] of cases) {
      it(`${kind}: 201, and the stored object has the defaults`, async () => {
        const obj = valid(kind, name(`ok-${kind}`), storage);
        check(await created(kind, obj));
        const back = await get(kind, obj.metadata.name);
        expect(back.status).to.equal(200);
        check(back.body);
      });
    }

    it('pvc: status set on create is dropped (phase Pending)', async () => {
      const obj = { ...valid('pvc', name('pvc-status'), storage), status: { phase: 'Bound', capacity: { storage: '1Gi' } } };
      expect((await created('pvc', obj)).status).to.deep.equal({ phase: 'Pending' });
    });

    it('pv: explicit reclaim policy, block mode, local with node affinity and an empty (never matching) term', async () => {
      const obj = valid('pv', name('pv-local'), storage);
      delete obj.spec.hostPath;
      Object.assign(obj.spec, {
        persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block', local: { path: '/dev/sdb' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }, {}] } },
      });
      const o = await created('pv', obj);
      expect(o.spec.persistentVolumeReclaimPolicy).to.equal('Delete');
      expect(o.spec.nodeAffinity.required.nodeSelectorTerms).to.have.length(2);
    });

    it('pv: csi source with secret references and iscsi/rbd source defaults', async () => {
      const csi = valid('pv', name('pv-csi'), storage);
      delete csi.spec.hostPath;
      csi.spec.csi = { driver: 'csi.example.com', volumeHandle: 'vol-1', nodePublishSecretRef: { name: 'creds', namespace: 'kube-system' } };
      expect((await created('pv', csi)).spec.csi.volumeHandle).to.equal('vol-1');
      const iscsi = valid('pv', name('pv-iscsi'), storage);
      delete iscsi.spec.hostPath;
      iscsi.spec.iscsi = { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0 };
      expect((await created('pv', iscsi)).spec.iscsi.iscsiInterface).to.equal('default');
      const rbd = valid('pv', name('pv-rbd'), storage);
      delete rbd.spec.hostPath;
      rbd.spec.rbd = { monitors: ['10.0.0.1:6789'], image: 'img' };
      expect((await created('pv', rbd)).spec.rbd).to.include({ pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    });
  });

  describe('dataSource and dataSourceRef', () => {
    const claim = (ds?: Obj, dsr?: Obj) => {
      const o = valid('pvc', name('pvc-ds'), storage);
      if (ds) o.spec.dataSource = ds;
      if (dsr) o.spec.dataSourceRef = dsr;
      return o;
    };
    it('a claim dataSource is copied to dataSourceRef', async () => {
      const o = await created('pvc', claim({ kind: 'PersistentVolumeClaim', name: 'src' }));
      expect(o.spec.dataSourceRef).to.deep.equal({ kind: 'PersistentVolumeClaim', name: 'src' });
    });
    it('a dataSourceRef of a populator is copied to dataSource', async () => {
      const ref = { apiGroup: 'populator.example.com', kind: 'Image', name: 'img' };
      const o = await created('pvc', claim(undefined, ref));
      expect(o.spec.dataSource).to.deep.equal(ref);
    });
    it('a disallowed dataSource alone is dropped silently', async () => {
      const o = await created('pvc', claim({ apiGroup: 'populator.example.com', kind: 'Image', name: 'img' }));
      expect(o.spec).to.not.have.property('dataSource');
      expect(o.spec).to.not.have.property('dataSourceRef');
    });
    it('a snapshot dataSource is kept', async () => {
      const snap = { apiGroup: `snapshot.${storage}`, kind: 'VolumeSnapshot', name: 'snap' };
      expect((await created('pvc', claim(snap))).spec.dataSourceRef).to.deep.equal(snap);
    });
  });

  describe('each validation rule rejects with 422 and leaves the store unchanged', () => {
    interface Rule { kind: KindKey; rule: string; change: (o: Obj) => void; field: string | (() => string); reason: string; message?: string }
    const noSource = (o: Obj) => { delete o.spec.hostPath; };
    const rules: Rule[] = [
      { kind: 'pvc', rule: 'accessModes required', change: (o) => { delete o.spec.accessModes; }, field: 'spec.accessModes', reason: 'FieldValueRequired', message: 'at least 1 access mode is required' },
      { kind: 'pvc', rule: 'access mode supported', change: (o) => { o.spec.accessModes = ['Sometimes']; }, field: 'spec.accessModes', reason: 'FieldValueNotSupported' },
      { kind: 'pvc', rule: 'ReadWriteOncePod alone', change: (o) => { o.spec.accessModes = ['ReadWriteOncePod', 'ReadWriteOnce']; }, field: 'spec.accessModes', reason: 'FieldValueForbidden' },
      { kind: 'pvc', rule: 'storage request required', change: (o) => { o.spec.resources = {}; }, field: 'spec.resources[storage]', reason: 'FieldValueRequired' },
      { kind: 'pvc', rule: 'storage request positive', change: (o) => { o.spec.resources.requests.storage = '0'; }, field: 'spec.resources[storage]', reason: 'FieldValueInvalid', message: 'must be greater than zero' },
      { kind: 'pvc', rule: 'volumeMode supported', change: (o) => { o.spec.volumeMode = 'Raw'; }, field: 'spec.volumeMode', reason: 'FieldValueNotSupported' },
      { kind: 'pvc', rule: 'storageClassName a DNS subdomain', change: (o) => { o.spec.storageClassName = 'Fast_Class'; }, field: 'spec.storageClassName', reason: 'FieldValueInvalid' },
      { kind: 'pvc', rule: 'dataSourceRef keeps and rejects a disallowed value', change: (o) => { o.spec.dataSourceRef = { kind: 'Pod', name: 'p' }; }, field: 'spec.dataSourceRef', reason: 'FieldValueInvalid' },
      { kind: 'pvc', rule: 'dataSource equals dataSourceRef', change: (o) => { o.spec.dataSource = { kind: 'PersistentVolumeClaim', name: 'a' }; o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', name: 'b' }; }, field: 'spec', reason: 'FieldValueInvalid', message: 'must match dataSourceRef' },
      { kind: 'pvc', rule: 'data source name required', change: (o) => { o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim' }; }, field: 'spec.dataSourceRef.name', reason: 'FieldValueRequired' },
      { kind: 'pvc', rule: 'selector operators', change: (o) => { o.spec.selector = { matchExpressions: [{ key: 'a', operator: 'Near' }] }; }, field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
      { kind: 'pv', rule: 'a volume type required', change: noSource, field: 'spec', reason: 'FieldValueRequired', message: 'must specify a volume type' },
      { kind: 'pv', rule: 'one volume type', change: (o) => { o.spec.nfs = { server: 'nfs', path: '/x' }; }, field: 'spec.nfs', reason: 'FieldValueForbidden', message: 'may not specify more than 1 volume type' },
      { kind: 'pv', rule: 'capacity required', change: (o) => { delete o.spec.capacity; }, field: 'spec.capacity', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'capacity is storage only', change: (o) => { o.spec.capacity.cpu = '1'; }, field: 'spec.capacity', reason: 'FieldValueNotSupported' },
      { kind: 'pv', rule: 'reclaim policy supported', change: (o) => { o.spec.persistentVolumeReclaimPolicy = 'Keep'; }, field: 'spec.persistentVolumeReclaimPolicy', reason: 'FieldValueNotSupported' },
      { kind: 'pv', rule: 'no Recycle of a hostPath /', change: (o) => { o.spec.hostPath.path = '/'; o.spec.persistentVolumeReclaimPolicy = 'Recycle'; }, field: 'spec.persistentVolumeReclaimPolicy', reason: 'FieldValueForbidden' },
      { kind: 'pv', rule: 'local needs node affinity', change: (o) => { noSource(o); o.spec.local = { path: '/mnt/disk' }; }, field: 'spec.nodeAffinity', reason: 'FieldValueRequired', message: 'Local volume requires node affinity' },
      { kind: 'pv', rule: 'local path required', change: (o) => { noSource(o); o.spec.local = {}; o.spec.nodeAffinity = { required: { nodeSelectorTerms: [{}] } }; }, field: 'spec.local.path', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'node affinity required terms', change: (o) => { o.spec.nodeAffinity = {}; }, field: 'spec.nodeAffinity.required', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'at least one node selector term', change: (o) => { o.spec.nodeAffinity = { required: { nodeSelectorTerms: [] } }; }, field: 'spec.nodeAffinity.required.nodeSelectorTerms', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'node selector operator', change: (o) => { o.spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near' }] }] } }; }, field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator', reason: 'FieldValueInvalid' },
      { kind: 'pv', rule: 'node field selector key', change: (o) => { o.spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchFields: [{ key: 'spec.nodeName', operator: 'In', values: ['a'] }] }] } }; }, field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key', reason: 'FieldValueInvalid' },
      { kind: 'pv', rule: 'csi volumeHandle required', change: (o) => { noSource(o); o.spec.csi = { driver: 'csi.example.com' }; }, field: 'spec.csi.volumeHandle', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'csi driver name', change: (o) => { noSource(o); o.spec.csi = { driver: 'Bad Driver!', volumeHandle: 'v' }; }, field: 'spec.csi.driver', reason: 'FieldValueInvalid' },
      { kind: 'pv', rule: 'csi secret reference namespace', change: (o) => { noSource(o); o.spec.csi = { driver: 'csi.example.com', volumeHandle: 'v', nodeStageSecretRef: { name: 's' } }; }, field: 'spec.csi.nodeStageSecretRef.namespace', reason: 'FieldValueRequired' },
      { kind: 'pv', rule: 'nfs path absolute', change: (o) => { noSource(o); o.spec.nfs = { server: 'nfs', path: 'rel' }; }, field: 'spec.nfs.path', reason: 'FieldValueInvalid', message: 'must be an absolute path' },
      { kind: 'pv', rule: 'iscsi iqn format', change: (o) => { noSource(o); o.spec.iscsi = { targetPortal: '1.2.3.4', iqn: 'bogus', lun: 0 }; }, field: 'spec.iscsi.iqn', reason: 'FieldValueInvalid' },
      { kind: 'pv', rule: 'mount options only for supporting types', change: (o) => { o.metadata.annotations = { [`volume.beta.${storage.replace(/^storage\./, '').replace('k8s.io', 'kubernetes.io')}/mount-options`]: 'ro' }; }, field: () => `metadata.annotations.volume.beta.${storage.replace(/^storage\./, '').replace('k8s.io', 'kubernetes.io')}/mount-options`, reason: 'FieldValueForbidden' },
      { kind: 'sc', rule: 'provisioner required', change: (o) => { delete o.provisioner; }, field: 'provisioner', reason: 'FieldValueRequired' },
      { kind: 'sc', rule: 'provisioner a qualified name', change: (o) => { o.provisioner = 'bad provisioner'; }, field: 'provisioner', reason: 'FieldValueInvalid' },
      { kind: 'sc', rule: 'reclaimPolicy Delete or Retain', change: (o) => { o.reclaimPolicy = 'Recycle'; }, field: 'reclaimPolicy', reason: 'FieldValueNotSupported' },
      { kind: 'sc', rule: 'volumeBindingMode supported', change: (o) => { o.volumeBindingMode = 'Later'; }, field: 'volumeBindingMode', reason: 'FieldValueNotSupported' },
      { kind: 'sc', rule: 'parameter keys non-empty', change: (o) => { o.parameters = { '': 'x' }; }, field: 'parameters', reason: 'FieldValueInvalid' },
      { kind: 'sc', rule: 'topology values required', change: (o) => { o.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }]; }, field: 'allowedTopologies[0].matchLabelExpressions[0].values', reason: 'FieldValueRequired' },
      { kind: 'sc', rule: 'topology values unique', change: (o) => { o.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'a'] }] }]; }, field: 'allowedTopologies[0].matchLabelExpressions[0].values[1]', reason: 'FieldValueDuplicate' },
      { kind: 'va', rule: 'source needs a member', change: (o) => { o.spec.source = {}; }, field: 'spec.source', reason: 'FieldValueRequired' },
      { kind: 'va', rule: 'source has exactly one member', change: (o) => { o.spec.source.inlineVolumeSpec = { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' } }; }, field: 'spec.source', reason: 'FieldValueForbidden' },
      { kind: 'va', rule: 'attacher required', change: (o) => { delete o.spec.attacher; }, field: 'spec.attacher', reason: 'FieldValueRequired' },
      { kind: 'va', rule: 'nodeName a DNS subdomain', change: (o) => { o.spec.nodeName = 'Node_1'; }, field: 'spec.nodeName', reason: 'FieldValueInvalid' },
      { kind: 'va', rule: 'inline spec needs csi', change: (o) => { o.spec.source = { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'] } }; }, field: 'spec.source.inlineVolumeSpec.csi', reason: 'FieldValueRequired' },
      { kind: 'csidriver', rule: 'audiences unique', change: (o) => { o.spec.tokenRequests = [{ audience: 'a' }, { audience: 'a' }]; }, field: 'spec.tokenRequests[1].audience', reason: 'FieldValueDuplicate' },
      { kind: 'csidriver', rule: 'at most one empty audience', change: (o) => { o.spec.tokenRequests = [{ audience: '' }, { audience: '' }]; }, field: 'spec.tokenRequests[1].audience', reason: 'FieldValueDuplicate' },
      { kind: 'csidriver', rule: 'token lifetime at least 10 minutes', change: (o) => { o.spec.tokenRequests = [{ audience: 'a', expirationSeconds: 60 }]; }, field: 'spec.tokenRequests[0].expirationSeconds', reason: 'FieldValueInvalid' },
      { kind: 'csidriver', rule: 'lifecycle modes supported', change: (o) => { o.spec.volumeLifecycleModes = ['Forever']; }, field: 'spec.volumeLifecycleModes', reason: 'FieldValueNotSupported' },
      { kind: 'csidriver', rule: 'lifecycle modes a set', change: (o) => { o.spec.volumeLifecycleModes = ['Ephemeral', 'Ephemeral']; }, field: 'spec.volumeLifecycleModes[1]', reason: 'FieldValueDuplicate' },
      { kind: 'csidriver', rule: 'fsGroupPolicy supported', change: (o) => { o.spec.fsGroupPolicy = 'Sometimes'; }, field: 'spec.fsGroupPolicy', reason: 'FieldValueNotSupported' },
      { kind: 'csinode', rule: 'driver nodeID required', change: (o) => { delete o.spec.drivers[0].nodeID; }, field: 'spec.drivers[0].nodeID', reason: 'FieldValueRequired' },
      { kind: 'csinode', rule: 'driver name required', change: (o) => { delete o.spec.drivers[0].name; }, field: 'spec.drivers[0].name', reason: 'FieldValueRequired' },
      { kind: 'csinode', rule: 'driver names unique', change: (o) => { o.spec.drivers.push({ ...o.spec.drivers[0] }); }, field: 'spec.drivers[1].name', reason: 'FieldValueDuplicate' },
      { kind: 'csinode', rule: 'nodeID at most 256 characters', change: (o) => { o.spec.drivers[0].nodeID = 'n'.repeat(257); }, field: 'spec.drivers[0].nodeID', reason: 'FieldValueInvalid' },
      { kind: 'csinode', rule: 'allocatable count not negative', change: (o) => { o.spec.drivers[0].allocatable = { count: -1 }; }, field: 'spec.drivers[0].allocatable.count', reason: 'FieldValueInvalid' },
      { kind: 'csc', rule: 'storageClassName required (a class name)', change: (o) => { delete o.storageClassName; }, field: 'storageClassName', reason: 'FieldValueInvalid' },
      { kind: 'csc', rule: 'capacity not negative', change: (o) => { o.capacity = '-1Gi'; }, field: 'capacity', reason: 'FieldValueInvalid' },
      { kind: 'csc', rule: 'nodeTopology a valid selector', change: (o) => { o.nodeTopology = { matchExpressions: [{ key: 'zone', operator: 'Near' }] }; }, field: 'nodeTopology.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
    ];
    for (const r of rules) {
      it(`${r.kind}: ${r.rule}`, async () => {
        const obj = valid(r.kind, name(`bad-${r.kind}`), storage);
        r.change(obj);
        const res = await create(r.kind, obj);
        expectCause(res, typeof r.field === 'string' ? r.field : r.field(), r.reason, r.message);
        expect((await get(r.kind, obj.metadata.name)).status).to.equal(404);
      });
    }

    it('a body that does not decode (wrong type, bad quantity) is a 400', async () => {
      const wrongType = valid('pvc', name('pvc-type'), storage);
      wrongType.spec.accessModes = 'ReadWriteOnce';
      const a = await create('pvc', wrongType);
      expect(a.status, a.text).to.equal(400);
      expect(a.body.message).to.contain('cannot unmarshal');
      const badQuantity = valid('pv', name('pv-qty'), storage);
      badQuantity.spec.capacity.storage = '10 gigs';
      const b = await create('pv', badQuantity);
      expect(b.status, b.text).to.equal(400);
      expect(b.body.message).to.contain('quantities must match the regular expression');
    });
  });

  describe('immutability on update', () => {
    interface Change { kind: KindKey; what: string; change: (o: Obj) => void; field?: string; reason?: string }
    const changes: Change[] = [
      { kind: 'pvc', what: 'accessModes of an unbound claim', change: (o) => { o.spec.accessModes = ['ReadWriteMany']; }, field: 'spec', reason: 'FieldValueForbidden' },
      { kind: 'pvc', what: 'volumeMode', change: (o) => { o.spec.volumeMode = 'Block'; }, field: 'volumeMode', reason: 'FieldValueInvalid' },
      { kind: 'pvc', what: 'storage request of an unbound claim', change: (o) => { o.spec.resources.requests.storage = '5Gi'; }, field: 'spec', reason: 'FieldValueForbidden' },
      { kind: 'pvc', what: 'a first volumeName (allowed)', change: (o) => { o.spec.volumeName = 'pv-1'; } },
      { kind: 'pvc', what: 'labels (allowed)', change: (o) => { o.metadata.labels = { a: 'b' }; } },
      { kind: 'pv', what: 'the source', change: (o) => { o.spec.hostPath.path = '/other'; }, field: 'spec.persistentvolumesource', reason: 'FieldValueForbidden' },
      { kind: 'pv', what: 'volumeMode', change: (o) => { o.spec.volumeMode = 'Block'; }, field: 'volumeMode', reason: 'FieldValueInvalid' },
      { kind: 'pv', what: 'capacity (allowed)', change: (o) => { o.spec.capacity.storage = '20Gi'; } },
      { kind: 'pv', what: 'a first node affinity (allowed)', change: (o) => { o.spec.nodeAffinity = { required: { nodeSelectorTerms: [{}] } }; } },
      { kind: 'sc', what: 'parameters', change: (o) => { o.parameters = { type: 'ssd' }; }, field: 'parameters', reason: 'FieldValueForbidden' },
      { kind: 'sc', what: 'provisioner', change: (o) => { o.provisioner = 'example.com/slow'; }, field: 'provisioner', reason: 'FieldValueForbidden' },
      { kind: 'sc', what: 'reclaimPolicy', change: (o) => { o.reclaimPolicy = 'Retain'; }, field: 'reclaimPolicy', reason: 'FieldValueForbidden' },
      { kind: 'sc', what: 'volumeBindingMode', change: (o) => { o.volumeBindingMode = 'WaitForFirstConsumer'; }, field: 'volumeBindingMode', reason: 'FieldValueInvalid' },
      { kind: 'sc', what: 'allowVolumeExpansion and mountOptions (allowed)', change: (o) => { o.allowVolumeExpansion = true; o.mountOptions = ['ro']; } },
      { kind: 'va', what: 'the spec', change: (o) => { o.spec.nodeName = 'node-2'; }, field: 'spec', reason: 'FieldValueInvalid' },
      { kind: 'csidriver', what: 'attachRequired', change: (o) => { o.spec.attachRequired = false; }, field: 'spec.attachedRequired', reason: 'FieldValueInvalid' },
      { kind: 'csidriver', what: 'podInfoOnMount', change: (o) => { o.spec.podInfoOnMount = true; }, field: 'spec.podInfoOnMount', reason: 'FieldValueInvalid' },
      { kind: 'csidriver', what: 'fsGroupPolicy', change: (o) => { o.spec.fsGroupPolicy = 'File'; }, field: 'spec.fsGroupPolicy', reason: 'FieldValueInvalid' },
      { kind: 'csidriver', what: 'volumeLifecycleModes', change: (o) => { o.spec.volumeLifecycleModes = ['Ephemeral']; }, field: 'spec.volumeLifecycleModes', reason: 'FieldValueInvalid' },
      { kind: 'csinode', what: 'a driver entry', change: (o) => { o.spec.drivers[0].nodeID = 'other'; }, field: 'spec.drivers', reason: 'FieldValueInvalid' },
      { kind: 'csinode', what: 'another driver (allowed)', change: (o) => { o.spec.drivers.push({ name: 'other.example.com', nodeID: 'n' }); } },
      { kind: 'csc', what: 'storageClassName', change: (o) => { o.storageClassName = 'slow'; }, field: 'storageClassName', reason: 'FieldValueInvalid' },
      { kind: 'csc', what: 'nodeTopology', change: (o) => { o.nodeTopology = {}; }, field: 'nodeTopology', reason: 'FieldValueInvalid' },
      { kind: 'csc', what: 'capacity (allowed)', change: (o) => { o.capacity = '50Gi'; } },
    ];
    for (const c of changes) {
      it(`${c.kind}: ${c.what}${c.field ? ' is rejected' : ''}`, async () => {
        const obj = await created(c.kind, valid(c.kind, name(`upd-${c.kind}`), storage));
        const res = await mutated(c.kind, obj, c.change);
        if (!c.field) {
          expect(res.status, res.text).to.equal(200);
          return;
        }
        expectCause(res, c.field, c.reason!);
        const after = await get(c.kind, obj.metadata.name);
        expect(after.body.metadata.resourceVersion).to.equal(obj.metadata.resourceVersion);
      });
    }

    it('csidriver: a change of a mutable field counts in metadata.generation', async () => {
      const obj = await created('csidriver', valid('csidriver', name('gen'), storage));
      expect(obj.metadata.generation).to.equal(undefined);
      const res = await mutated('csidriver', obj, (o) => { o.spec.storageCapacity = true; });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('pvc: a bound claim may grow its request but not shrink it', async () => {
      // Growing needs a class that allows expansion (PersistentVolumeClaimResize), as the watch cache has it.
      const sc = await created('sc', { ...valid('sc', name('expandable'), storage), allowVolumeExpansion: true });
      await eventually(async () => (await t.get(`${paths.sc}?resourceVersion=0`)).body.items.some((i: Obj) => i.metadata.name === sc.metadata.name));
      const obj = await created('pvc', { ...valid('pvc', name('grow'), storage), spec: { ...valid('pvc', '', storage).spec, storageClassName: sc.metadata.name } });
      const bound = await mutated('pvc', obj, (o) => { o.status = { phase: 'Bound', capacity: { storage: '1536Mi' } }; }, '/status');
      expect(bound.status, bound.text).to.equal(200);
      const grow = await mutated('pvc', obj, (o) => { o.spec.resources.requests.storage = '3Gi'; });
      expect(grow.status, grow.text).to.equal(200);
      expect(grow.body.spec.resources.requests.storage).to.equal('3Gi');
      const shrink = await mutated('pvc', obj, (o) => { o.spec.resources.requests.storage = '2Gi'; });
      expectCause(shrink, 'spec.resources.requests.storage', 'FieldValueForbidden', 'field can not be less than previous value');
    });

    it('pvc: volumeName is set once', async () => {
      const obj = await created('pvc', valid('pvc', name('bind'), storage));
      expect((await mutated('pvc', obj, (o) => { o.spec.volumeName = 'pv-a'; })).status).to.equal(200);
      expectCause(await mutated('pvc', obj, (o) => { o.spec.volumeName = 'pv-b'; }), 'spec', 'FieldValueForbidden');
    });

    it('pv: a controller-expand secret may be added to a CSI volume', async () => {
      const obj = valid('pv', name('pv-expand'), storage);
      delete obj.spec.hostPath;
      obj.spec.csi = { driver: 'csi.example.com', volumeHandle: 'h' };
      const pv = await created('pv', obj);
      const res = await mutated('pv', pv, (o) => { o.spec.csi.controllerExpandSecretRef = { name: 's', namespace: 'ns' }; });
      expect(res.status, res.text).to.equal(200);
      expectCause(await mutated('pv', pv, (o) => { o.spec.csi.volumeHandle = 'h2'; }), 'spec.persistentvolumesource', 'FieldValueForbidden');
    });

    it('pv: a node affinity, once set, is immutable', async () => {
      const obj = valid('pv', name('pv-aff'), storage);
      obj.spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } };
      const pv = await created('pv', obj);
      expectCause(await mutated('pv', pv, (o) => { o.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values = ['b']; }),
        'nodeAffinity', 'FieldValueInvalid');
    });
  });

  describe('status subresources', () => {
    it('pvc: a write to /status changes only status; a write to the object never changes status', async () => {
      const obj = await created('pvc', valid('pvc', name('st'), storage));
      const res = await mutated('pvc', obj, (o) => {
        o.spec.accessModes = ['ReadWriteMany'];
        o.metadata.labels = { via: 'status' };
        o.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' },
          conditions: [{ type: 'Resizing', status: 'True' }, { type: 'FileSystemResizePending', status: 'False' }] };
      }, '/status');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.accessModes).to.deep.equal(['ReadWriteOnce']);
      expect(res.body.metadata.labels ?? {}).to.not.have.property('via');
      expect(res.body.status.phase).to.equal('Bound');
      const main = await mutated('pvc', obj, (o) => { o.status = { phase: 'Lost' }; o.metadata.labels = { via: 'main' }; });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status.phase).to.equal('Bound');
      expect(main.body.metadata.labels).to.deep.equal({ via: 'main' });
      const viaGet = await get('pvc', obj.metadata.name, '/status');
      expect(viaGet.status).to.equal(200);
      expect(viaGet.body.kind).to.equal('PersistentVolumeClaim');
      expect(viaGet.body.status.capacity).to.deep.equal({ storage: '2Gi' });
    });

    it('pvc: conditions are merged by type by a strategic merge patch of /status', async () => {
      const obj = await created('pvc', valid('pvc', name('cond'), storage));
      const put = await mutated('pvc', obj, (o) => {
        o.status = { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True' }, { type: 'FileSystemResizePending', status: 'False' }] };
      }, '/status');
      expect(put.status, put.text).to.equal(200);
      const patch = await t.request('PATCH', `${paths.pvc}/${obj.metadata.name}/status`, {
        raw: JSON.stringify({ status: { conditions: [{ type: 'Resizing', status: 'False', reason: 'ResizeStarted' }] } }),
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      });
      expect(patch.status, patch.text).to.equal(200);
      expect(patch.body.status.conditions).to.deep.equal([
        { type: 'Resizing', status: 'False', reason: 'ResizeStarted' }, { type: 'FileSystemResizePending', status: 'False' },
      ]);
    });

    it('pvc: allocatedResources and resizeStatus are dropped while their gate is off', async () => {
      const obj = await created('pvc', valid('pvc', name('alloc'), storage));
      const res = await mutated('pvc', obj, (o) => { o.status = { phase: 'Bound', allocatedResources: { storage: '2Gi' }, resizeStatus: 'NodeExpansionPending' }; }, '/status');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal({ phase: 'Bound' });
    });

    it('pv: /status sets phase, message and reason; the object write keeps them', async () => {
      const obj = await created('pv', valid('pv', name('pvst'), storage));
      const res = await mutated('pv', obj, (o) => { o.spec.capacity.storage = '1Gi'; o.status = { phase: 'Failed', message: 'recycler failed', reason: 'RecyclerFailed' }; }, '/status');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.capacity.storage).to.equal('10Gi');
      expect(res.body.status).to.deep.equal({ phase: 'Failed', message: 'recycler failed', reason: 'RecyclerFailed' });
      const main = await mutated('pv', obj, (o) => { o.status = { phase: 'Available' }; });
      expect(main.body.status.phase).to.equal('Failed');
    });

    it('va: only /status sets attached, attachmentMetadata and errors; their limits are checked', async () => {
      const obj = await created('va', valid('va', name('vast'), storage));
      const main = await mutated('va', obj, (o) => { o.status = { attached: true }; });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status).to.deep.equal({ attached: false });
      const res = await mutated('va', obj, (o) => {
        o.spec.nodeName = 'elsewhere';
        o.status = { attached: true, attachmentMetadata: { device: '/dev/sdb' }, detachError: { message: 'busy', time: '2024-01-01T00:00:00Z' } };
      }, '/status');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.nodeName).to.equal('node-1');
      expect(res.body.status).to.deep.include({ attached: true, attachmentMetadata: { device: '/dev/sdb' } });
      const tooLong = await mutated('va', obj, (o) => { o.status.attachError = { message: 'x'.repeat(1025) }; }, '/status');
      expectCause(tooLong, 'status.attachError.message', 'FieldValueTooLong');
    });

    it('kinds without status have no /status', async () => {
      const obj = await created('sc', valid('sc', name('nost'), storage));
      expect((await get('sc', obj.metadata.name, '/status')).status).to.equal(404);
    });
  });

  describe('list and map markers in merges', () => {
    const patch = (kind: KindKey, n: string, body: unknown, type: string, query = '') =>
      t.request('PATCH', `${paths[kind]}/${n}${query}`, { raw: JSON.stringify(body), headers: { 'content-type': type } });
    const SMP = 'application/strategic-merge-patch+json';

    it('csinode: a strategic merge patch merges drivers by name', async () => {
      const obj = await created('csinode', valid('csinode', name('merge-node'), storage));
      const res = await patch('csinode', obj.metadata.name, { spec: { drivers: [{ name: 'b.example.com', nodeID: 'n-b' }] } }, SMP);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.drivers.map((d: Obj) => d.name)).to.have.members(['csi.example.com', 'b.example.com']);
    });

    it('csinode: server-side apply by two managers keeps both drivers (list map keyed by name)', async () => {
      const n = name('apply-node');
      const body = (driver: string) => ({ apiVersion: `${storage}/v1`, kind: 'CSINode', metadata: { name: n }, spec: { drivers: [{ name: driver, nodeID: 'n' }] } });
      const a = await patch('csinode', n, body('a.example.com'), 'application/apply-patch+yaml', '?fieldManager=agent-a');
      expect(a.status, a.text).to.equal(201);
      const b = await patch('csinode', n, body('b.example.com'), 'application/apply-patch+yaml', '?fieldManager=agent-b');
      expect(b.status, b.text).to.equal(200);
      expect(b.body.spec.drivers.map((d: Obj) => d.name)).to.have.members(['a.example.com', 'b.example.com']);
    });

    it('sc: allowedTopologies is replaced as a whole by a strategic merge patch', async () => {
      const obj = valid('sc', name('topo'), storage);
      obj.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }];
      await created('sc', obj);
      const res = await patch('sc', obj.metadata.name, { allowedTopologies: [{ matchLabelExpressions: [{ key: 'rack', values: ['r1'] }] }] }, SMP);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.allowedTopologies).to.deep.equal([{ matchLabelExpressions: [{ key: 'rack', values: ['r1'] }] }]);
    });
  });

  describe('delete responses', () => {
    for (const kind of ['pvc', 'pv', 'sc', 'va', 'csidriver', 'csinode'] as KindKey[]) {
      it(`${kind}: DELETE answers the object`, async () => {
        const obj = await created(kind, valid(kind, name(`del-${kind}`), storage));
        const res = await t.del(`${paths[kind]}/${obj.metadata.name}`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.kind).to.equal(obj.kind);
        expect(res.body.metadata.uid).to.equal(obj.metadata.uid);
        // Claims and volumes carry the in-use protection finalizer: its controller removes them moments later.
        await eventually(async () => (await get(kind, obj.metadata.name)).status === 404);
      });
    }

    it('csc: DELETE answers a Success Status', async () => {
      const obj = await created('csc', valid('csc', name('del-csc'), storage));
      const res = await t.del(`${paths.csc}/${obj.metadata.name}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ kind: 'Status', status: 'Success' });
      expect(res.body.details).to.deep.include({ name: obj.metadata.name, group: storage, uid: obj.metadata.uid });
    });

    it('pvc: DELETE of a claim with a finalizer answers the terminating object', async () => {
      const obj = valid('pvc', name('del-fin'), storage);
      obj.metadata.finalizers = ['example.com/protect'];
      await created('pvc', obj);
      const res = await t.del(`${paths.pvc}/${obj.metadata.name}`);
      expect(res.status, res.text).to.be.oneOf([200, 202]);
      expect(res.body.kind).to.equal('PersistentVolumeClaim');
      expect(res.body.metadata.deletionTimestamp).to.be.a('string');
      // The unused claim loses its in-use protection finalizer to the pvc-protection controller; the other stays.
      await eventually(async () => {
        const fins = (await get('pvc', obj.metadata.name)).body.metadata.finalizers;
        return fins.length === 1 && fins[0] === 'example.com/protect';
      });
      const after = await mutated('pvc', obj, (o) => { o.metadata.finalizers = []; });
      expect(after.status, after.text).to.equal(200);
    });
  });

  describe('discovery and lists', () => {
    it('/api/v1 lists the claims and volumes with short names and their /status', async () => {
      const res = await t.get('/api/v1');
      const byName = new Map<string, Obj>(res.body.resources.map((r: Obj) => [r.name, r]));
      expect(byName.get('persistentvolumeclaims')).to.deep.include({ kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], singularName: 'persistentvolumeclaim' });
      expect(byName.get('persistentvolumes')).to.deep.include({ kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'] });
      expect(byName.get('persistentvolumeclaims/status')?.verbs).to.have.members(['get', 'patch', 'update']);
      expect(byName.get('persistentvolumes/status')).to.not.equal(undefined);
    });

    it('the storage group serves v1 with its five kinds', async () => {
      const groups = await t.get('/apis');
      const group = groups.body.groups.find((g: Obj) => g.name === storage);
      expect(group.preferredVersion).to.deep.equal({ groupVersion: `${storage}/v1`, version: 'v1' });
      const res = await t.get(`/apis/${storage}/v1`);
      const byName = new Map<string, Obj>(res.body.resources.map((r: Obj) => [r.name, r]));
      expect(byName.get('storageclasses')).to.deep.include({ kind: 'StorageClass', namespaced: false, shortNames: ['sc'] });
      expect(byName.get('volumeattachments')).to.deep.include({ kind: 'VolumeAttachment', namespaced: false });
      expect(byName.get('volumeattachments/status')).to.not.equal(undefined);
      expect(byName.get('csidrivers')).to.deep.include({ kind: 'CSIDriver', namespaced: false });
      expect(byName.get('csinodes')).to.deep.include({ kind: 'CSINode', namespaced: false });
      expect(byName.get('csistoragecapacities')).to.deep.include({ kind: 'CSIStorageCapacity', namespaced: true });
      expect(byName.has('storageclasses/status')).to.equal(false);
    });

    it('volumes and claims take the field selector `name` besides metadata.name', async () => {
      const pv = await created('pv', valid('pv', name('byname'), storage));
      const res = await t.get(`${paths.pv}?fieldSelector=name%3D${pv.metadata.name}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.items.map((o: Obj) => o.metadata.name)).to.deep.equal([pv.metadata.name]);
      expect((await t.get(`${paths.pvc}?fieldSelector=name%3Dnone`)).body.items).to.deep.equal([]);
      expect((await t.get(`${paths.sc}?fieldSelector=name%3Dnone`)).status).to.equal(400);
    });

    it('claims and capacities are listed across namespaces', async () => {
      await created('pvc', valid('pvc', name('listed'), storage));
      await created('csc', valid('csc', name('listed'), storage));
      const claims = await t.get('/api/v1/persistentvolumeclaims');
      expect(claims.body.kind).to.equal('PersistentVolumeClaimList');
      expect(claims.body.items.length).to.be.greaterThan(0);
      const capacities = await t.get(`/apis/${storage}/v1/csistoragecapacities`);
      expect(capacities.body.kind).to.equal('CSIStorageCapacityList');
      expect(capacities.body.items.length).to.be.greaterThan(0);
    });
  });
});

describe('storage kinds under feature gates', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--feature-gates=AnyVolumeDataSource=false,RecoverVolumeExpansionFailure=true', '--flavor=kubernetes']);
  });
  after(async () => { await t?.stop(); });
  const claims = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
  const claim = (n: string): Obj => valid('pvc', n, 'storage.k8s.io');

  it('without AnyVolumeDataSource, dataSourceRef is dropped and dataSource is not copied', async () => {
    const obj = claim('gate-ds');
    obj.spec.dataSourceRef = { apiGroup: 'populator.example.com', kind: 'Image', name: 'img' };
    obj.spec.dataSource = { kind: 'PersistentVolumeClaim', name: 'src' };
    const res = await t.post(claims, obj);
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec).to.not.have.property('dataSourceRef');
    expect(res.body.spec.dataSource).to.deep.equal({ kind: 'PersistentVolumeClaim', name: 'src' });
  });

  it('with RecoverVolumeExpansionFailure, allocatedResources and resizeStatus are kept and checked', async () => {
    const created = await t.post(claims, claim('gate-alloc'));
    expect(created.status, created.text).to.equal(201);
    const status = { phase: 'Bound', capacity: { storage: '1Gi' }, allocatedResources: { storage: '2Gi' }, resizeStatus: 'NodeExpansionPending' };
    const ok = await t.put(`${claims}/gate-alloc/status`, { ...created.body, status });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.status).to.deep.include({ allocatedResources: { storage: '2Gi' }, resizeStatus: 'NodeExpansionPending' });
    const bad = await t.put(`${claims}/gate-alloc/status`, { ...ok.body, status: { ...status, resizeStatus: 'Sideways', allocatedResources: { cpu: '1' } } });
    expectCause(bad, 'status.resizeStatus', 'FieldValueNotSupported');
    expectCause(bad, 'status.allocatedResources', 'FieldValueNotSupported');
  });

  it('with RecoverVolumeExpansionFailure, a request may shrink down to just above status.capacity', async () => {
    const obj = claim('gate-shrink');
    obj.spec.resources.requests.storage = '10Gi';
    const created = await t.post(claims, obj);
    const bound = await t.put(`${claims}/gate-shrink/status`, { ...created.body, status: { phase: 'Bound', capacity: { storage: '2Gi' } } });
    expect(bound.status, bound.text).to.equal(200);
    const current = bound.body;
    current.spec.resources.requests.storage = '5Gi';
    const shrink = await t.put(`${claims}/gate-shrink`, current);
    expect(shrink.status, shrink.text).to.equal(200);
    shrink.body.spec.resources.requests.storage = '2Gi';
    expectCause(await t.put(`${claims}/gate-shrink`, shrink.body), 'spec.resources.requests.storage', 'FieldValueForbidden', 'field can not be less than status.capacity');
  });

  it('the kubernetes flavor serves the kinds under storage.k8s.io', async () => {
    const res = await t.get('/apis/storage.k8s.io/v1');
    expect(res.status).to.equal(200);
    expect(res.body.resources.map((r: Obj) => r.name)).to.include.members(['storageclasses', 'csidrivers', 'csinodes', 'volumeattachments', 'csistoragecapacities']);
  });
});
