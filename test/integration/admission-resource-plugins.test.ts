/**
 * The built-in admission plugins for namespaces, storage and owner references, through HTTPS
 * against a real etcd: DefaultStorageClass (and several defaults refused),
 * StorageObjectInUseProtection with the pvc-protection and pv-protection controllers (a claim
 * in use stays Terminating until its pod goes; a Bound volume until it is released),
 * PersistentVolumeClaimResize, NamespaceAutoProvision, NamespaceExists and
 * OwnerReferencesPermissionEnforcement with an identity restricted by RBAC. Every refusal is
 * checked as kube-apiserver words it and leaves nothing stored.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';

type Obj = Record<string, any>;
const NS = 'default';
const PVCS = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PVS = '/api/v1/persistentvolumes';

const must = (res: HttpResponse, status = [200, 201]): Obj => {
  expect(status, res.text).to.include(res.status);
  return res.body;
};
const claim = (name: string, spec: Obj = {}, metadata: Obj = {}): Obj => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, ...metadata },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const pod = (name: string, volumes: Obj[], nodeName?: string): Obj => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }], volumes },
});
const mergePatch = (t: TestServer, path: string, body: unknown, identity?: { certPem: string; keyPem: string }) =>
  t.request('PATCH', path, { raw: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json' }, identity });
const gone = (t: TestServer, path: string) => eventually(async () => (await t.get(path)).status === 404);
/** Long enough for the protection controllers to have acted on a change if they were going to. */
const settle = () => new Promise((r) => setTimeout(r, 1000));

describe('admission plugins for storage (default plugins)', function () {
  this.timeout(90_000);
  let t: TestServer;
  let SCS: string;
  let domain: string;
  const storageClass = (name: string, extra: Obj = {}, annotations: Obj = {}): Obj => ({
    apiVersion: SCS.split('/').slice(2, 4).join('/'), kind: 'StorageClass', metadata: { name, annotations }, provisioner: 'example.com/disk', ...extra,
  });
  /** Creates a class and waits until the watch cache (what the plugins read) has it. */
  const createClass = async (sc: Obj) => {
    must(await t.post(SCS, sc));
    await eventually(async () => (await t.get(`${SCS}?resourceVersion=0`)).body.items.some((i: Obj) => i.metadata.name === sc.metadata.name));
  };
  const deleteClass = async (name: string) => {
    must(await t.del(`${SCS}/${name}`));
    await eventually(async () => !(await t.get(`${SCS}?resourceVersion=0`)).body.items.some((i: Obj) => i.metadata.name === name));
  };

  before(async () => {
    t = await startTestServer();
    domain = t.server.naming.labelDomain;
    SCS = `/apis/${t.server.naming.group('storage')}/v1/storageclasses`;
  });
  after(async () => { await t?.stop(); });

  describe('DefaultStorageClass', () => {
    before(() => createClass(storageClass('gold', {}, { [`storageclass.${domain}/is-default-class`]: 'true' })));
    after(() => deleteClass('gold'));

    it('gives a claim without a class the default class', async () => {
      const created = must(await t.post(PVCS, claim('dsc-none')));
      expect(created.spec.storageClassName).to.equal('gold');
      expect((await t.get(`${PVCS}/dsc-none`)).body.spec.storageClassName).to.equal('gold');
    });

    it('keeps an explicit class, the empty class, and the beta class annotation', async () => {
      expect(must(await t.post(PVCS, claim('dsc-explicit', { storageClassName: 'silver' }))).spec.storageClassName).to.equal('silver');
      expect(must(await t.post(PVCS, claim('dsc-empty', { storageClassName: '' }))).spec.storageClassName).to.equal('');
      const annotated = must(await t.post(PVCS, claim('dsc-beta', {}, { annotations: { [`volume.beta.${domain}/storage-class`]: 'bronze' } })));
      expect(annotated.spec.storageClassName).to.equal(undefined);
    });

    it('ignores updates', async () => {
      must(await t.post(PVCS, claim('dsc-update', { storageClassName: '' })));
      const updated = must(await mergePatch(t, `${PVCS}/dsc-update`, { metadata: { labels: { a: 'b' } } }));
      expect(updated.spec.storageClassName).to.equal('');
    });

    it('refuses a claim without a class while two classes are default (either annotation), and stores nothing', async () => {
      await createClass(storageClass('platinum', {}, { [`storageclass.beta.${domain}/is-default-class`]: 'true' }));
      try {
        const res = await t.post(PVCS, claim('dsc-two'));
        expect(res.status, res.text).to.equal(403);
        expect(res.body.reason).to.equal('Forbidden');
        expect(res.body.message).to.equal('persistentvolumeclaims "dsc-two" is forbidden: Internal error occurred: 2 default StorageClasses were found');
        expect((await t.get(`${PVCS}/dsc-two`)).status).to.equal(404);
        // A claim that names its class does not need the default.
        must(await t.post(PVCS, claim('dsc-two-named', { storageClassName: 'gold' })));
      } finally {
        await deleteClass('platinum');
      }
      expect(must(await t.post(PVCS, claim('dsc-two'))).spec.storageClassName).to.equal('gold');
    });

    it('does nothing when no class is default', async () => {
      await deleteClass('gold');
      try {
        expect(must(await t.post(PVCS, claim('dsc-nodefault'))).spec.storageClassName).to.equal(undefined);
      } finally {
        await createClass(storageClass('gold', {}, { [`storageclass.${domain}/is-default-class`]: 'true' }));
      }
    });
  });

  describe('StorageObjectInUseProtection and the protection controllers', () => {
    it('adds the protection finalizers to new claims and volumes (dry run included)', async () => {
      expect(must(await t.post(PVCS, claim('prot-new'))).metadata.finalizers).to.deep.equal([`${domain}/pvc-protection`]);
      expect(must(await t.post(`${PVCS}?dryRun=All`, claim('prot-dry'))).metadata.finalizers).to.deep.equal([`${domain}/pvc-protection`]);
      const pv = must(await t.post(PVS, {
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'prot-pv-new', finalizers: ['example.com/keep'] },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
      }));
      expect(pv.metadata.finalizers).to.deep.equal(['example.com/keep', `${domain}/pv-protection`]);
      must(await mergePatch(t, `${PVS}/prot-pv-new`, { metadata: { finalizers: [`${domain}/pv-protection`] } }));
      must(await t.del(`${PVS}/prot-pv-new`));
      await gone(t, `${PVS}/prot-pv-new`);
    });

    it('removes an unused claim soon after its deletion', async () => {
      must(await t.post(PVCS, claim('prot-unused')));
      const deleted = must(await t.del(`${PVCS}/prot-unused`));
      expect(deleted.metadata.deletionTimestamp).to.be.a('string');
      await gone(t, `${PVCS}/prot-unused`);
    });

    it('keeps a claim that a scheduled pod uses Terminating until the pod is deleted', async () => {
      must(await t.post(PVCS, claim('prot-used')));
      must(await t.post(PODS, pod('prot-user', [{ name: 'data', persistentVolumeClaim: { claimName: 'prot-used' } }], 'node-1')));
      must(await t.del(`${PVCS}/prot-used`));
      await settle();
      const terminating = must(await t.get(`${PVCS}/prot-used`));
      expect(terminating.metadata.deletionTimestamp).to.be.a('string');
      expect(terminating.metadata.finalizers).to.deep.equal([`${domain}/pvc-protection`]);
      // As in Kubernetes, a pod that has run to completion still holds the claim until it is deleted.
      must(await mergePatch(t, `${PODS}/prot-user/status`, { status: { phase: 'Succeeded' } }));
      await settle();
      expect((await t.get(`${PVCS}/prot-used`)).status).to.equal(200);
      must(await t.del(`${PODS}/prot-user`));
      await gone(t, `${PVCS}/prot-used`);
    });

    it('does not hold a claim for a pod that is not scheduled', async () => {
      must(await t.post(PVCS, claim('prot-unscheduled')));
      must(await t.post(PODS, pod('prot-pending', [{ name: 'data', persistentVolumeClaim: { claimName: 'prot-unscheduled' } }])));
      must(await t.del(`${PVCS}/prot-unscheduled`));
      await gone(t, `${PVCS}/prot-unscheduled`);
    });

    it('keeps a pod\'s ephemeral claim until the pod goes', async () => {
      must(await t.post(PODS, pod('prot-eph', [{
        name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
      }], 'node-1')));
      const generated = `${PVCS}/prot-eph-scratch`;
      await eventually(async () => (await t.get(generated)).status === 200);
      must(await t.del(generated));
      await settle();
      expect(must(await t.get(generated)).metadata.deletionTimestamp).to.be.a('string');
      // No kubelet runs: the delete finishes the pod as its kubelet would (grace 0).
      must(await t.del(`${PODS}/prot-eph?gracePeriodSeconds=0`));
      await gone(t, generated);
    });

    it('lets a namespace deletion finish: its pods go, then its protected claims', async () => {
      must(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prot-ns' } }));
      must(await t.post('/api/v1/namespaces/prot-ns/persistentvolumeclaims', claim('data')));
      // The namespace's default service account (which ServiceAccount admission wants) appears moments after the namespace.
      await eventually(async () => (await t.post('/api/v1/namespaces/prot-ns/pods',
        pod('user', [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }], 'node-1'))).status === 201);
      must(await t.del('/api/v1/namespaces/prot-ns'));
      // The namespace controller deletes the scheduled pod gracefully; with no kubelet, the test
      // finishes that deletion as the pod's kubelet would.
      await eventually(async () => !!must(await t.get('/api/v1/namespaces/prot-ns/pods/user')).metadata.deletionTimestamp);
      must(await t.del('/api/v1/namespaces/prot-ns/pods/user?gracePeriodSeconds=0'));
      await gone(t, '/api/v1/namespaces/prot-ns');
    });

    it('keeps a Bound volume Terminating until it is no longer Bound', async () => {
      must(await t.post(PVS, {
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'prot-pv-bound' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
      }));
      must(await mergePatch(t, `${PVS}/prot-pv-bound/status`, { status: { phase: 'Bound' } }));
      must(await t.del(`${PVS}/prot-pv-bound`));
      await settle();
      const terminating = must(await t.get(`${PVS}/prot-pv-bound`));
      expect(terminating.metadata.deletionTimestamp).to.be.a('string');
      expect(terminating.metadata.finalizers).to.deep.equal([`${domain}/pv-protection`]);
      must(await mergePatch(t, `${PVS}/prot-pv-bound/status`, { status: { phase: 'Released' } }));
      await gone(t, `${PVS}/prot-pv-bound`);
    });
  });

  describe('PersistentVolumeClaimResize', () => {
    before(async () => {
      await createClass(storageClass('expandable', { allowVolumeExpansion: true }));
      await createClass(storageClass('fixed'));
    });

    const boundClaim = async (name: string, storageClassName: string) => {
      must(await t.post(PVCS, claim(name, { storageClassName })));
      must(await mergePatch(t, `${PVCS}/${name}/status`, { status: { phase: 'Bound', capacity: { storage: '1Gi' } } }));
    };
    const grow = (name: string, storage = '2Gi') => mergePatch(t, `${PVCS}/${name}`, { spec: { resources: { requests: { storage } } } });

    it('lets a bound claim of a class with allowVolumeExpansion grow', async () => {
      await boundClaim('resize-ok', 'expandable');
      expect(must(await grow('resize-ok')).spec.resources.requests.storage).to.equal('2Gi');
    });

    it('refuses to grow a claim whose class does not allow expansion, and leaves it unchanged', async () => {
      await boundClaim('resize-fixed', 'fixed');
      const res = await grow('resize-fixed');
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal('persistentvolumeclaims "resize-fixed" is forbidden: only dynamically provisioned pvc can be resized and '
        + 'the storageclass that provisions the pvc must support resize');
      expect(must(await t.get(`${PVCS}/resize-fixed`)).spec.resources.requests.storage).to.equal('1Gi');
    });

    it('refuses to grow a claim whose class does not exist', async () => {
      await boundClaim('resize-missing', 'no-such-class');
      expect((await grow('resize-missing')).status).to.equal(403);
    });

    it('leaves other changes of a bound claim alone', async () => {
      await boundClaim('resize-label', 'fixed');
      must(await mergePatch(t, `${PVCS}/resize-label`, { metadata: { labels: { tier: 'db' } } }));
    });
  });
});

describe('admission plugin NamespaceAutoProvision', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(['--enable-admission-plugins=NamespaceAutoProvision']); });
  after(async () => { await t?.stop(); });
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

  it('creates the missing namespace of a create', async () => {
    expect((await t.get('/api/v1/namespaces/made-for-me')).status).to.equal(404);
    must(await t.post('/api/v1/namespaces/made-for-me/configmaps', configMap('first')));
    expect(must(await t.get('/api/v1/namespaces/made-for-me')).status.phase).to.equal('Active');
    must(await t.get('/api/v1/namespaces/made-for-me/configmaps/first'));
    // A second create there finds the namespace.
    must(await t.post('/api/v1/namespaces/made-for-me/configmaps', configMap('second')));
  });

  it('creates nothing on a dry run (which the missing namespace then refuses)', async () => {
    const res = await t.post('/api/v1/namespaces/dry-made/configmaps?dryRun=All', configMap('x'));
    expect(res.status, res.text).to.equal(404);
    expect(res.body.message).to.equal('namespaces "dry-made" not found');
    expect((await t.get('/api/v1/namespaces/dry-made')).status).to.equal(404);
  });
});

describe('admission plugins NamespaceExists and OwnerReferencesPermissionEnforcement', function () {
  this.timeout(60_000);
  let t: TestServer;
  let rbac: string;
  const CMS = `/api/v1/namespaces/${NS}/configmaps`;
  const ALL_BUT_DELETE = ['get', 'list', 'create', 'update', 'patch'];
  // NamespaceLifecycle off, so that what refuses missing namespaces here is NamespaceExists.
  before(async () => {
    t = await startTestServer(['--enable-admission-plugins=NamespaceExists,OwnerReferencesPermissionEnforcement', '--disable-admission-plugins=NamespaceLifecycle']);
    rbac = t.server.naming.group('rbac.authorization');
    const R = `/apis/${rbac}/v1/namespaces/${NS}`;
    const role = (name: string, rules: Obj[]) => ({ apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name }, rules });
    must(await t.post(`${R}/roles`, role('cm-writer', [{ apiGroups: [''], resources: ['configmaps'], verbs: ALL_BUT_DELETE }])));
    must(await t.post(`${R}/roles`, role('cm-deleter', [{ apiGroups: [''], resources: ['configmaps'], verbs: [...ALL_BUT_DELETE, 'delete'] }])));
    must(await t.post(`${R}/roles`, role('cm-finalizers', [{ apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] }])));
    const bind = (name: string, roleName: string, user: string) => t.post(`${R}/rolebindings`, {
      apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: rbac, kind: 'Role', name: roleName },
      subjects: [{ apiGroup: rbac, kind: 'User', name: user }],
    });
    must(await bind('olivia-writer', 'cm-writer', 'olivia'));
    must(await bind('dan-deleter', 'cm-deleter', 'dan'));
    must(await bind('fay-writer', 'cm-writer', 'fay'));
    must(await bind('fay-finalizers', 'cm-finalizers', 'fay'));
    must(await t.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } }));
  });
  after(async () => { await t?.stop(); });

  describe('NamespaceExists', () => {
    it('refuses a create in a namespace that does not exist with NotFound', async () => {
      const res = await t.post('/api/v1/namespaces/nowhere/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
      expect(res.status, res.text).to.equal(404);
      expect(res.body).to.include({ reason: 'NotFound', message: 'namespaces "nowhere" not found' });
      expect(res.body.details).to.deep.include({ name: 'nowhere', kind: 'namespaces' });
    });

    it('admits writes in a namespace that exists, including one created a moment ago', async () => {
      must(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } }));
      must(await t.post('/api/v1/namespaces/fresh/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }));
    });
  });

  describe('OwnerReferencesPermissionEnforcement', () => {
    let ownerRef: Obj;
    before(async () => {
      const owner = must(await t.get(`${CMS}/owner`));
      ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid };
    });
    const cm = (name: string, ownerReferences?: Obj[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences }, data: { a: '1' } });

    it('lets a user who cannot delete create an object with owner references (not blocking)', async () => {
      must(await t.post(CMS, cm('owned-at-create', [ownerRef]), { identity: t.identity('olivia') }));
    });

    it('refuses a change of owner references by a user who cannot delete the object, and keeps the object', async () => {
      must(await t.post(CMS, cm('plain'), { identity: t.identity('olivia') }));
      const res = await mergePatch(t, `${CMS}/plain`, { metadata: { ownerReferences: [ownerRef] } }, t.identity('olivia'));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal('configmaps "plain" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
      expect(must(await t.get(`${CMS}/plain`)).metadata.ownerReferences).to.equal(undefined);
      // Changes that leave the references alone are that user's to make.
      must(await mergePatch(t, `${CMS}/plain`, { data: { a: '2' } }, t.identity('olivia')));
      must(await mergePatch(t, `${CMS}/owned-at-create`, { data: { a: '2' } }, t.identity('olivia')));
    });

    it('lets a user who may delete the object change its owner references', async () => {
      must(await t.post(CMS, cm('dans'), { identity: t.identity('dan') }));
      must(await mergePatch(t, `${CMS}/dans`, { metadata: { ownerReferences: [ownerRef] } }, t.identity('dan')));
    });

    it('refuses blockOwnerDeletion without update on the owner\'s finalizers, even to a user who may delete', async () => {
      const blocking = { ...ownerRef, blockOwnerDeletion: true };
      const created = await t.post(CMS, cm('blocker', [blocking]), { identity: t.identity('olivia') });
      expect(created.status, created.text).to.equal(403);
      expect(created.body.message).to.equal('configmaps "blocker" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a '
        + 'resource you can\'t set finalizers on: , <nil>');
      expect((await t.get(`${CMS}/blocker`)).status).to.equal(404);
      const turnedOn = await mergePatch(t, `${CMS}/dans`, { metadata: { ownerReferences: [blocking] } }, t.identity('dan'));
      expect(turnedOn.status, turnedOn.text).to.equal(403);
      expect(turnedOn.body.message).to.contain('cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on');
    });

    it('lets a user with update on the owner\'s finalizers set blockOwnerDeletion', async () => {
      const created = must(await t.post(CMS, cm('fays', [{ ...ownerRef, blockOwnerDeletion: true }]), { identity: t.identity('fay') }));
      expect(created.metadata.ownerReferences[0].blockOwnerDeletion).to.equal(true);
    });

    it('refuses blockOwnerDeletion on an owner whose kind is not served, naming it', async () => {
      const res = await t.post(CMS, cm('widgeted', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1', blockOwnerDeletion: true }]),
        { identity: t.identity('fay') });
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal('configmaps "widgeted" is forbidden: cannot set blockOwnerDeletion in this case because cannot find '
        + 'RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"');
    });
  });
});
