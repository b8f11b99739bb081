/**
 * node/v1 RuntimeClass and the RuntimeClass admission plugin over HTTPS against a real etcd:
 * CRUD (PUT may create; updates must name a resourceVersion), Kubernetes 1.32's validation rows
 * (handler a DNS-1123 label and immutable, overhead quantities, scheduling node selector and
 * tolerations), each a 422 with Kubernetes' causes and nothing stored; kubectl's table; pods
 * created with a class getting its overhead, node selector and tolerations, and the conflicts
 * and unknown classes the plugin refuses.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore, expectForbidden } from '../helpers/kind-checks';

type Body = Record<string, any>;
const NS = 'runtimes';
const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const podsPath = (name = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}`;
const pod = (name: string, spec: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });

describe('RuntimeClass (node/v1) and the RuntimeClass plugin', () => {
  let t: TestServer;
  let group: string;
  const path = (name = '') => `/apis/${group}/v1/runtimeclasses${name ? `/${name}` : ''}`;
  const rc = (name: string, fields: Body): Body => ({ apiVersion: `${group}/v1`, kind: 'RuntimeClass', metadata: { name }, ...fields });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => expectInvalidCauses(res, 'RuntimeClass', causes);

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('node');
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('CRUD and validation', () => {
    it('creates, reads, lists, updates and deletes a class', async () => {
      const body = rc('crud', { handler: 'runc', overhead: { podFixed: { cpu: '100m', memory: '64Mi' } }, scheduling: { nodeSelector: { runtime: 'runc' }, tolerations: [{ key: 'runtime', operator: 'Exists' }] } });
      const created = await t.post(path(), body);
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.deep.include({ handler: 'runc', overhead: body.overhead, scheduling: body.scheduling });
      expect((await t.get(path('crud'))).body).to.deep.equal(created.body);
      expect(((await t.get(path())).body.items as Body[]).map((i) => i.metadata.name)).to.include('crud');
      const patched = await mergePatch(t, path('crud'), { scheduling: { nodeSelector: { runtime: 'runc', zone: 'a' } } });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.scheduling.nodeSelector).to.deep.equal({ runtime: 'runc', zone: 'a' });
      expect((await t.del(path('crud'))).status).to.equal(200);
      expect((await t.get(path('crud'))).status).to.equal(404);
    });

    it('stores the overhead in canonical form, rounded up to milli units', async () => {
      const res = await t.post(path(), rc('canonical', { handler: 'runc', overhead: { podFixed: { cpu: '0.25', memory: '1.5Gi', 'ephemeral-storage': '0.0001' } } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.overhead.podFixed).to.deep.equal({ cpu: '250m', memory: '1536Mi', 'ephemeral-storage': '1m' });
    });

    it('creates on PUT, and refuses an update without a resourceVersion', async () => {
      const put = await t.put(path('by-put'), rc('by-put', { handler: 'crun' }));
      expect(put.status, put.text).to.equal(201);
      const noVersion = await t.put(path('by-put'), rc('by-put', { handler: 'crun', overhead: { podFixed: { cpu: '1' } } }));
      expectInvalid(noVersion, [{ field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update' }]);
      expect((await t.get(path('by-put'))).body.overhead).to.equal(undefined);
    });

    const invalid: Array<[string, Body, Cause[]]> = [
      ['no handler', {}, [{ field: 'handler', reason: 'FieldValueInvalid', message: `Invalid value: "": ${LABEL}` }]],
      ['a handler that is no DNS label', { handler: 'Run_C' }, [{ field: 'handler', reason: 'FieldValueInvalid', message: `Invalid value: "Run_C": ${LABEL}` }]],
      ['a handler with dots', { handler: 'run.c' }, [{ field: 'handler', reason: 'FieldValueInvalid', message: 'Invalid value: "run.c": must not contain dots' }]],
      ['a handler over 63 characters', { handler: 'a'.repeat(64) }, [
        { field: 'handler', reason: 'FieldValueInvalid', message: `Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters` }]],
      ['a negative overhead', { handler: 'runc', overhead: { podFixed: { cpu: '-1' } } }, [
        { field: 'overhead.limits[cpu]', reason: 'FieldValueInvalid', message: 'Invalid value: "-1": must be greater than or equal to 0' }]],
      ['an overhead of a resource containers do not have', { handler: 'runc', overhead: { podFixed: { pods: '1' } } }, [
        { field: 'overhead.limits[pods]', reason: 'FieldValueInvalid', message: 'Invalid value: "pods": must be a standard resource for containers' }]],
      ['a node selector key that is no label name', { handler: 'runc', scheduling: { nodeSelector: { 'bad key': 'x' } } }, [
        { field: 'scheduling.nodeSelector', reason: 'FieldValueInvalid', message: `Invalid value: "bad key": ${NAME_PART}` }]],
      ['a toleration without key whose operator is not Exists', { handler: 'runc', scheduling: { tolerations: [{ operator: 'Equal', value: 'x' }] } }, [{
        field: 'scheduling.tolerations[0].operator', reason: 'FieldValueInvalid',
        message: 'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      }]],
      ['a toleration with an unknown effect', { handler: 'runc', scheduling: { tolerations: [{ key: 'a', operator: 'Exists', effect: 'Sometimes' }] } }, [{
        field: 'scheduling.tolerations[0].effect', reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      }]],
    ];
    invalid.forEach(([what, fields, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), rc(`invalid-${i}`, fields)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('keeps the handler immutable, and checks an update as a create', async () => {
      expect((await t.post(path(), rc('fixed', { handler: 'runc' }))).status).to.equal(201);
      const changed = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('fixed'), { handler: 'crun' }));
      expectInvalid(changed, [{ field: 'handler', reason: 'FieldValueInvalid', message: 'Invalid value: "crun": field is immutable' }]);
      const bad = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('fixed'), { overhead: { podFixed: { memory: '-5' } } }));
      expectInvalid(bad, [{ field: 'overhead.limits[memory]', reason: 'FieldValueInvalid', message: 'Invalid value: "-5": must be greater than or equal to 0' }]);
    });
  });

  it("prints kubectl's NAME HANDLER AGE", async () => {
    expect((await t.post(path(), rc('table', { handler: 'kata' }))).status).to.equal(201);
    const res = await t.get(path('table'), TABLE);
    expect(res.status, res.text).to.equal(200);
    expect((res.body.columnDefinitions as Body[]).map((c) => c.name)).to.deep.equal(['Name', 'Handler', 'Age']);
    expect(res.body.rows[0].cells.slice(0, 2)).to.deep.equal(['table', 'kata']);
  });

  describe('the RuntimeClass plugin', () => {
    before(async () => {
      const res = await t.post(path(), rc('kata', {
        handler: 'kata', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
        scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'runtime', operator: 'Equal', value: 'kata', effect: 'NoSchedule' }] },
      }));
      expect(res.status, res.text).to.equal(201);
    });

    it("gives a created pod the class's overhead, node selector and tolerations", async () => {
      const res = await t.post(podsPath(), pod('sandboxed', { runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.overhead).to.deep.equal({ cpu: '250m', memory: '120Mi' });
      expect(res.body.spec.nodeSelector).to.deep.equal({ disk: 'ssd', runtime: 'kata' });
      expect(res.body.spec.tolerations).to.deep.include({ key: 'runtime', operator: 'Equal', value: 'kata', effect: 'NoSchedule' });
    });

    it('refuses a node selector conflict, an overhead other than the class\'s and an unknown class, storing no pod', async () => {
      const cases: Array<[string, Body, string]> = [
        ['conflict', { runtimeClassName: 'kata', nodeSelector: { runtime: 'runc' } }, 'conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc'],
        ['overhead', { runtimeClassName: 'kata', overhead: { cpu: '1' } }, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
        ['no-class-overhead', { overhead: { cpu: '1' } }, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
        ['unknown', { runtimeClassName: 'gvisor' }, 'pod rejected: RuntimeClass "gvisor" not found'],
      ];
      for (const [name, spec, why] of cases) {
        expectForbidden(await t.post(podsPath(), pod(name, spec)), `pods "${name}" is forbidden: ${why}`);
        expect((await t.get(podsPath(name))).status).to.equal(404);
      }
    });

    it('finds a class created a moment before the pod', async () => {
      expect((await t.post(path(), rc('just-made', { handler: 'runsc', scheduling: { nodeSelector: { sandbox: 'gvisor' } } }))).status).to.equal(201);
      const res = await t.post(podsPath(), pod('right-after', { runtimeClassName: 'just-made' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.nodeSelector).to.deep.equal({ sandbox: 'gvisor' });
    });
  });
});
