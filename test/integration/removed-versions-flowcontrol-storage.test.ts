/**
 * Removed versions of flowcontrol and storage, through HTTP against a real etcd:
 * flowcontrol.apiserver v1beta1, v1beta2, v1beta3 FlowSchema and PriorityLevelConfiguration
 * (removed in 1.26, 1.29, 1.32) and storage v1beta1 StorageClass, VolumeAttachment, CSIDriver,
 * CSINode (1.22) and CSIStorageCapacity (1.27). Off by default (404); switched on by
 * `--runtime-config`, each is served over the v1 objects with Kubernetes' deprecation warning:
 * written at the old version, read at v1 (fields mapped) and back; written at v1, updated at the
 * old version and read at v1 without loss; the mandatory and suggested APF objects read through
 * every version; watched and listed at the old versions; bad input refused, nothing stored.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { rejectedLeavingStore } from '../helpers/kind-checks';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { flavors } from '../../lib/naming';

const naming = flavors.orch;
const FC = naming.group('flowcontrol.apiserver');
const STORAGE = naming.group('storage');
const BETAS = ['v1beta1', 'v1beta2', 'v1beta3'] as const;
const LIFECYCLE: Record<string, [number, number, string]> = { v1beta1: [23, 26, 'v1beta2'], v1beta2: [26, 29, 'v1beta3'], v1beta3: [29, 32, 'v1'] };
const PRESERVE_ZERO = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
type Body = Record<string, any>;

const fcPath = (version: string, resource: string, name = '') => `/apis/${FC}/${version}/${resource}${name ? `/${name}` : ''}`;
const stPath = (version: string, resource: string, name = '') => `/apis/${STORAGE}/${version}/${resource}${name ? `/${name}` : ''}`;
const fs = (version: string, name: string, spec: Body): Body => ({ apiVersion: `${FC}/${version}`, kind: 'FlowSchema', metadata: { name }, spec });
const plc = (version: string, name: string, spec: Body, annotations?: Record<string, string>): Body =>
  ({ apiVersion: `${FC}/${version}`, kind: 'PriorityLevelConfiguration', metadata: { name, ...(annotations ? { annotations } : {}) }, spec });
const warning = (gv: string, kind: string, d: number, r: number, use: string) =>
  `${gv} ${kind} is deprecated in v1.${d}+, unavailable in v1.${r}+; use ${use} ${kind}`;
const QUEUE = { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } };

describe('removed versions: flowcontrol v1beta1-v1beta3 and storage v1beta1', () => {
  describe('without --runtime-config (and with =false)', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--flavor=orch', `--runtime-config=${FC}/v1beta3=false`]); });
    after(async () => { await t?.stop(); });

    it('serves none of them: 404, only v1 in discovery', async () => {
      for (const gv of [...BETAS.map((v) => `${FC}/${v}`), `${STORAGE}/v1beta1`]) expect((await t.get(`/apis/${gv}`)).status, gv).to.equal(404);
      expect((await t.get(stPath('v1beta1', 'storageclasses'))).status).to.equal(404);
      const groups = (await t.get('/apis')).body.groups as Body[];
      for (const g of [FC, STORAGE]) expect(groups.find((x) => x.name === g)!.versions.map((v: Body) => v.version), g).to.deep.equal(['v1']);
    });
  });

  describe('switched on', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(['--flavor=orch', `--runtime-config=${BETAS.map((v) => `${FC}/${v}=true`).join(',')},${STORAGE}/v1beta1=true`]);
      // The APF configuration keeper writes the mandatory and suggested objects.
      await eventually(async () => (await t.get(fcPath('v1', 'prioritylevelconfigurations', 'global-default'))).status === 200);
    });
    after(async () => { await t?.stop(); });

    describe('FlowSchema', () => {
      const SPEC = {
        priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 4000, distinguisherMethod: { type: 'ByNamespace' },
        rules: [{
          subjects: [{ kind: 'User', user: { name: 'alice' } }, { kind: 'Group', group: { name: 'devs' } }, { kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: 'sa' } }],
          resourceRules: [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        }],
      };

      for (const version of BETAS) {
        it(`created at ${version} with every field (deprecation warning), read at v1 and back`, async () => {
          const created = await t.post(fcPath(version, 'flowschemas'), fs(version, `fs-${version}`, SPEC));
          expect(created.status, created.text).to.equal(201);
          const [d, r, use] = LIFECYCLE[version];
          expect(String(created.headers.warning)).to.contain(warning(`${FC}/${version}`, 'FlowSchema', d, r, `${FC}/${use}`));
          const v1 = (await t.get(fcPath('v1', 'flowschemas', `fs-${version}`))).body;
          expect(v1.spec).to.deep.equal(SPEC);
          const back = (await t.get(fcPath(version, 'flowschemas', `fs-${version}`))).body;
          expect(back.apiVersion).to.equal(`${FC}/${version}`);
          expect(back.spec).to.deep.equal(SPEC);
        });
      }

      it('created at v1, updated at v1beta2 (matchingPrecedence defaulted there too), /status at v1beta1, read at v1', async () => {
        expect((await t.post(fcPath('v1', 'flowschemas'), fs('v1', 'fs-v1', SPEC))).status).to.equal(201);
        const beta = (await t.get(fcPath('v1beta2', 'flowschemas', 'fs-v1'))).body;
        // Unconditional writes: the APF configuration keeper writes the Dangling condition meanwhile.
        const { resourceVersion: _rv, ...meta } = beta.metadata;
        const put = await t.put(fcPath('v1beta2', 'flowschemas', 'fs-v1'), { ...beta, metadata: meta, spec: { ...beta.spec, matchingPrecedence: 0 } });
        expect(put.status, put.text).to.equal(200);
        expect(put.body.spec.matchingPrecedence).to.equal(1000);
        const condition = { type: 'Reviewed', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'Checked', message: 'ok' };
        const status = await t.put(fcPath('v1beta1', 'flowschemas', 'fs-v1/status'), { ...put.body, apiVersion: `${FC}/v1beta1`, metadata: meta, status: { conditions: [condition] } });
        expect(status.status, status.text).to.equal(200);
        const v1 = (await t.get(fcPath('v1', 'flowschemas', 'fs-v1'))).body;
        expect(v1.spec).to.deep.equal({ ...SPEC, matchingPrecedence: 1000 });
        expect(v1.status.conditions).to.deep.include(condition);
      });

      it('the mandatory and suggested FlowSchemas read through every version', async () => {
        const v1 = (await t.get(fcPath('v1', 'flowschemas'))).body.items as Body[];
        for (const version of BETAS) {
          const items = (await t.get(fcPath(version, 'flowschemas'))).body.items as Body[];
          for (const name of ['exempt', 'catch-all', 'global-default']) {
            const at = items.find((i) => i.metadata.name === name);
            expect(at?.apiVersion, `${version} ${name}`).to.equal(`${FC}/${version}`);
            expect(at!.spec).to.deep.equal(v1.find((i) => i.metadata.name === name)!.spec);
          }
        }
      });
    });

    describe('PriorityLevelConfiguration', () => {
      it('v1beta1 and v1beta2 call the shares assuredConcurrencyShares (deprecation warning); read at v1 and back', async () => {
        for (const version of ['v1beta1', 'v1beta2']) {
          const spec = { type: 'Limited', limited: { assuredConcurrencyShares: 7, limitResponse: QUEUE, lendablePercent: 10, borrowingLimitPercent: 20 } };
          const created = await t.post(fcPath(version, 'prioritylevelconfigurations'), plc(version, `pl-${version}`, spec));
          expect(created.status, created.text).to.equal(201);
          const [d, r, use] = LIFECYCLE[version];
          expect(String(created.headers.warning)).to.contain(warning(`${FC}/${version}`, 'PriorityLevelConfiguration', d, r, `${FC}/${use}`));
          const v1 = (await t.get(fcPath('v1', 'prioritylevelconfigurations', `pl-${version}`))).body;
          expect(v1.spec).to.deep.equal({ type: 'Limited', limited: { nominalConcurrencyShares: 7, limitResponse: QUEUE, lendablePercent: 10, borrowingLimitPercent: 20 } });
          expect((await t.get(fcPath(version, 'prioritylevelconfigurations', `pl-${version}`))).body.spec).to.deep.equal(spec);
        }
      });

      it('v1beta1 defaults unset or zero shares to 30, and the queuing and lending fields as v1 does', async () => {
        const created = await t.post(fcPath('v1beta1', 'prioritylevelconfigurations'), plc('v1beta1', 'pl-defaults', { type: 'Limited', limited: { assuredConcurrencyShares: 0, limitResponse: { type: 'Queue', queuing: {} } } }));
        expect(created.status, created.text).to.equal(201);
        expect(created.body.spec.limited).to.deep.equal({ assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } }, lendablePercent: 0 });
      });

      it('v1beta3 defaults zero shares to 30 unless the preserve-zero annotation says 0 (the annotation not stored)', async () => {
        const thirty = await t.post(fcPath('v1beta3', 'prioritylevelconfigurations'), plc('v1beta3', 'pl-b3-default', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: QUEUE } }));
        expect(thirty.status, thirty.text).to.equal(201);
        expect(thirty.body.spec.limited.nominalConcurrencyShares).to.equal(30);
        expect(String(thirty.headers.warning)).to.contain(warning(`${FC}/v1beta3`, 'PriorityLevelConfiguration', 29, 32, `${FC}/v1`));
        const zero = await t.post(fcPath('v1beta3', 'prioritylevelconfigurations'), plc('v1beta3', 'pl-b3-zero', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: QUEUE } }, { [PRESERVE_ZERO]: '', keep: 'me' }));
        expect(zero.status, zero.text).to.equal(201);
        const v1 = (await t.get(fcPath('v1', 'prioritylevelconfigurations', 'pl-b3-zero'))).body;
        expect(v1.spec.limited.nominalConcurrencyShares).to.equal(0);
        expect(v1.metadata.annotations).to.deep.equal({ keep: 'me' });
        const back = (await t.get(fcPath('v1beta3', 'prioritylevelconfigurations', 'pl-b3-zero'))).body;
        expect(back.metadata.annotations).to.deep.equal({ keep: 'me', [PRESERVE_ZERO]: '' });
        expect(back.spec.limited.nominalConcurrencyShares).to.equal(0);
      });

      it('created at v1 with zero shares: read and updated at v1beta3, still zero at v1; v1beta2 reads the zero as written', async () => {
        const spec = { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' }, lendablePercent: 0 } };
        expect((await t.post(fcPath('v1', 'prioritylevelconfigurations'), plc('v1', 'pl-v1-zero', spec))).status).to.equal(201);
        const beta3 = (await t.get(fcPath('v1beta3', 'prioritylevelconfigurations', 'pl-v1-zero'))).body;
        expect(beta3.metadata.annotations).to.deep.equal({ [PRESERVE_ZERO]: '' });
        const put = await t.put(fcPath('v1beta3', 'prioritylevelconfigurations', 'pl-v1-zero'), { ...beta3, metadata: { ...beta3.metadata, labels: { l: '1' } } });
        expect(put.status, put.text).to.equal(200);
        const v1 = (await t.get(fcPath('v1', 'prioritylevelconfigurations', 'pl-v1-zero'))).body;
        expect(v1.spec).to.deep.equal(spec);
        expect(v1.metadata.labels).to.deep.equal({ l: '1' });
        expect(v1.metadata.annotations).to.equal(undefined);
        expect((await t.get(fcPath('v1beta2', 'prioritylevelconfigurations', 'pl-v1-zero'))).body.spec.limited.assuredConcurrencyShares).to.equal(0);
      });

      it('the mandatory and suggested levels read through every version, shares renamed', async () => {
        const v1 = (await t.get(fcPath('v1', 'prioritylevelconfigurations', 'catch-all'))).body;
        for (const version of BETAS) {
          const catchAll = (await t.get(fcPath(version, 'prioritylevelconfigurations', 'catch-all'))).body;
          const field = version === 'v1beta3' ? 'nominalConcurrencyShares' : 'assuredConcurrencyShares';
          expect(catchAll.spec.limited[field], version).to.equal(v1.spec.limited.nominalConcurrencyShares);
          const exempt = (await t.get(fcPath(version, 'prioritylevelconfigurations', 'exempt'))).body;
          expect(exempt.spec.type).to.equal('Exempt');
          const names = ((await t.get(fcPath(version, 'prioritylevelconfigurations'))).body.items as Body[]).map((i) => i.metadata.name);
          expect(names).to.include.members(['exempt', 'catch-all', 'global-default', 'workload-low']);
        }
      });

      it('watches at v1beta2 what v1 writes, in v1beta2 shape', async () => {
        const rv = (await t.get(fcPath('v1beta2', 'prioritylevelconfigurations'))).body.metadata.resourceVersion;
        const watch = openWatch(adminTarget(t.server), `${fcPath('v1beta2', 'prioritylevelconfigurations')}?watch=1&resourceVersion=${rv}`);
        try {
          expect((await t.post(fcPath('v1', 'prioritylevelconfigurations'), plc('v1', 'pl-watched', { type: 'Limited', limited: { nominalConcurrencyShares: 9, limitResponse: QUEUE } }))).status).to.equal(201);
          const seen = await watch.waitFor((e) => e.object.metadata.name === 'pl-watched');
          expect(seen.type).to.equal('ADDED');
          expect(seen.object.apiVersion).to.equal(`${FC}/v1beta2`);
          expect(seen.object.spec.limited.assuredConcurrencyShares).to.equal(9);
          expect(seen.object.spec.limited.nominalConcurrencyShares).to.equal(undefined);
        } finally {
          watch.close();
        }
      });

      it('refuses negative shares at v1beta2 naming its field, storing nothing', async () => {
        const res = await rejectedLeavingStore(t, fcPath('v1', 'prioritylevelconfigurations'), () => t.post(fcPath('v1beta2', 'prioritylevelconfigurations'),
          plc('v1beta2', 'pl-bad', { type: 'Limited', limited: { assuredConcurrencyShares: -1, limitResponse: QUEUE } })));
        expect(res.status, res.text).to.equal(422);
        expect(res.body.details.causes.map((c: Body) => c.field)).to.include('spec.limited.assuredConcurrencyShares');
      });
    });

    describe('storage v1beta1', () => {
      const obj = (version: string, kind: string, name: string, fields: Body): Body => ({ apiVersion: `${STORAGE}/${version}`, kind, metadata: { name }, ...fields });
      const KINDS: Array<[string, string, [number, number], Body, Body]> = [
        ['storageclasses', 'StorageClass', [19, 22], {
          provisioner: 'csi.example.com', parameters: { type: 'ssd' }, reclaimPolicy: 'Retain', mountOptions: ['ro'], allowVolumeExpansion: true,
          volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }],
        }, {}],
        ['volumeattachments', 'VolumeAttachment', [19, 22], { spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } }, { status: { attached: false } }],
        ['csidrivers', 'CSIDriver', [19, 22], { spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], storageCapacity: true, fsGroupPolicy: 'File', tokenRequests: [{ audience: 'aud', expirationSeconds: 3600 }], requiresRepublish: true } }, {}],
        ['csinodes', 'CSINode', [17, 22], { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['zone'], allocatable: { count: 8 } }] } }, {}],
        ['csistoragecapacities', 'CSIStorageCapacity', [24, 27], { storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { zone: 'a' } } }, {}],
      ];
      const pathOf = (version: string, resource: string, name = '') => (resource === 'csistoragecapacities'
        ? `/apis/${STORAGE}/${version}/namespaces/default/${resource}${name ? `/${name}` : ''}` : stPath(version, resource, name));
      const fieldsOf = (o: Body): Body => { const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = o; return rest; };

      for (const [resource, kind, [d, r], fields, serverSet] of KINDS) {
        it(`${kind}: created at v1beta1 with every field (deprecation warning), read at v1 and back`, async () => {
          const created = await t.post(pathOf('v1beta1', resource), obj('v1beta1', kind, 'beta', fields));
          expect(created.status, created.text).to.equal(201);
          expect(String(created.headers.warning)).to.contain(warning(`${STORAGE}/v1beta1`, kind, d, r, `${STORAGE}/v1`));
          expect(fieldsOf((await t.get(pathOf('v1', resource, 'beta'))).body)).to.deep.equal({ ...fields, ...serverSet });
          const back = (await t.get(pathOf('v1beta1', resource, 'beta'))).body;
          expect(back.apiVersion).to.equal(`${STORAGE}/v1beta1`);
          expect(fieldsOf(back)).to.deep.equal({ ...fields, ...serverSet });
        });

        it(`${kind}: created at v1, updated at v1beta1, read at v1 with nothing lost; listed at v1beta1`, async () => {
          expect((await t.post(pathOf('v1', resource), obj('v1', kind, 'from-v1', fields))).status).to.equal(201);
          const beta = (await t.get(pathOf('v1beta1', resource, 'from-v1'))).body;
          expect(beta.apiVersion).to.equal(`${STORAGE}/v1beta1`);
          const put = await t.put(pathOf('v1beta1', resource, 'from-v1'), { ...beta, metadata: { ...beta.metadata, labels: { via: 'v1beta1' } } });
          expect(put.status, put.text).to.equal(200);
          const v1 = (await t.get(pathOf('v1', resource, 'from-v1'))).body;
          expect(fieldsOf(v1)).to.deep.equal({ ...fields, ...serverSet });
          expect(v1.metadata.labels).to.deep.equal({ via: 'v1beta1' });
          const list = (await t.get(pathOf('v1beta1', resource))).body;
          expect(list.kind).to.equal(`${kind}List`);
          expect(list.items.map((i: Body) => i.metadata.name)).to.include.members(['beta', 'from-v1']);
        });
      }

      it('CSIDriver: v1beta1 defaults its spec as Kubernetes does', async () => {
        const created = await t.post(stPath('v1beta1', 'csidrivers'), obj('v1beta1', 'CSIDriver', 'defaults', { spec: {} }));
        expect(created.status, created.text).to.equal(201);
        expect(created.body.spec).to.deep.equal({
          attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'], storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false,
        });
      });

      it('VolumeAttachment: /status at v1beta1', async () => {
        const current = (await t.get(stPath('v1beta1', 'volumeattachments', 'beta'))).body;
        const status = { attached: true, attachmentMetadata: { dev: '/dev/sdb' }, detachError: { time: '2026-01-02T03:04:05Z', message: 'busy' } };
        const put = await t.put(stPath('v1beta1', 'volumeattachments', 'beta/status'), { ...current, status });
        expect(put.status, put.text).to.equal(200);
        expect((await t.get(stPath('v1', 'volumeattachments', 'beta'))).body.status).to.deep.equal(status);
      });

      it('watches at v1beta1 what v1 writes', async () => {
        const rv = (await t.get(stPath('v1beta1', 'storageclasses'))).body.metadata.resourceVersion;
        const watch = openWatch(adminTarget(t.server), `${stPath('v1beta1', 'storageclasses')}?watch=1&resourceVersion=${rv}`);
        try {
          expect((await t.post(stPath('v1', 'storageclasses'), obj('v1', 'StorageClass', 'watched', { provisioner: 'csi.example.com' }))).status).to.equal(201);
          const seen = await watch.waitFor((e) => e.object.metadata.name === 'watched');
          expect(seen.type).to.equal('ADDED');
          expect(seen.object).to.deep.include({ apiVersion: `${STORAGE}/v1beta1`, provisioner: 'csi.example.com', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
        } finally {
          watch.close();
        }
      });

      it('refuses bad input at v1beta1 (a missing provisioner, an immutable CSIDriver field), storing nothing', async () => {
        const noProvisioner = await rejectedLeavingStore(t, stPath('v1', 'storageclasses'), () => t.post(stPath('v1beta1', 'storageclasses'), obj('v1beta1', 'StorageClass', 'bad', {})));
        expect(noProvisioner.status, noProvisioner.text).to.equal(422);
        expect(noProvisioner.body.details.causes.map((c: Body) => c.field)).to.include('provisioner');
        const driver = (await t.get(stPath('v1beta1', 'csidrivers', 'beta'))).body;
        const changed = await rejectedLeavingStore(t, stPath('v1', 'csidrivers'), () => t.put(stPath('v1beta1', 'csidrivers', 'beta'), { ...driver, spec: { ...driver.spec, attachRequired: true } }));
        expect(changed.status, changed.text).to.equal(422);
        // Kubernetes' path for it (sic).
        expect(changed.body.details.causes.map((c: Body) => c.field)).to.include('spec.attachedRequired');
      });
    });
  });
});
