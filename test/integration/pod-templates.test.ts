/**
 * PodTemplate (core/v1) over HTTPS against a real etcd: the template's defaults (a PodSpec's,
 * not a Pod's), metadata.generation counting template changes, the Table kubectl prints, and
 * for every rule of ValidatePodTemplate an invalid variant answered 422 with Kubernetes' field
 * path, reason and message, leaving the store unchanged.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'pod-templates';
const path = (name = '') => `/api/v1/namespaces/${NS}/podtemplates${name ? `/${name}` : ''}`;

type Body = Record<string, unknown>;

const container = (fields: Body = {}): Body => ({ name: 'main', image: 'registry.example.com/app:1', ...fields });
const podTemplate = (name: string, spec: Body = {}, meta: Body = {}): Body => ({
  apiVersion: 'v1', kind: 'PodTemplate', metadata: { name },
  template: { metadata: { labels: { app: 'web' }, ...meta }, spec: { containers: [container()], ...spec } },
});

const expectInvalid = (res: HttpResponse, causes: Cause[]): void => expectInvalidCauses(res, 'PodTemplate', causes);

describe('PodTemplate', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  const rejected = (write: () => Promise<HttpResponse>) => rejectedLeavingStore(t, path(), write);

  it('defaults the template as a PodSpec (SetDefaults_PodSpec and below), not as a Pod, and starts generation at 1', async () => {
    const res = await t.post(path(), podTemplate('defaults', {
      hostNetwork: true,
      containers: [container({ ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } })],
    }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.metadata.generation).to.equal(1);
    // Go writes the template's zero creationTimestamp as null.
    expect(res.body.template.metadata).to.deep.equal({ creationTimestamp: null, labels: { app: 'web' } });
    const spec = res.body.template.spec;
    expect(spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
    expect(spec.securityContext).to.deep.equal({});
    // SetDefaults_Pod's rules are the Pod's alone.
    expect(spec).to.not.have.property('enableServiceLinks');
    expect(spec.containers[0].resources).to.deep.equal({ limits: { cpu: '1' } });
    expect(spec.containers[0].ports).to.deep.equal([{ containerPort: 80, protocol: 'TCP' }]);
    expect(spec.containers[0]).to.include({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  });

  it('allows any restart policy in the template', async () => {
    for (const policy of ['Always', 'OnFailure', 'Never']) {
      const res = await t.post(path(), podTemplate(`restart-${policy.toLowerCase()}`, { restartPolicy: policy }));
      expect(res.status, res.text).to.equal(201);
    }
  });

  it('counts template changes in metadata.generation, not metadata changes', async () => {
    const created = (await t.post(path(), podTemplate('generation'))).body;
    const relabelled = await t.put(path('generation'), { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    expect(relabelled.status, relabelled.text).to.equal(200);
    expect(relabelled.body.metadata.generation).to.equal(1);
    const changed = structuredClone(relabelled.body);
    changed.template.spec.containers[0].image = 'registry.example.com/app:2';
    const updated = await t.put(path('generation'), changed);
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.metadata.generation).to.equal(2);
  });

  it('merges a strategic merge patch of template.spec.containers by name (PodSpec markers)', async () => {
    const body = podTemplate('smp', { containers: [container(), container({ name: 'side', image: 'busybox' })] });
    expect((await t.post(path(), body)).status).to.equal(201);
    const res = await t.request('PATCH', path('smp'), {
      body: { template: { spec: { containers: [{ name: 'side', image: 'busybox:1.36' }] } } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.template.spec.containers.map((c: Body) => [c.name, c.image]))
      .to.deep.equal([['main', 'registry.example.com/app:1'], ['side', 'busybox:1.36']]);
    expect(res.body.metadata.generation).to.equal(2);
  });

  it('prints NAME CONTAINERS IMAGES POD LABELS as kubectl does', async () => {
    const body = podTemplate('table', { containers: [container(), container({ name: 'side', image: 'busybox' })] }, { labels: { tier: 'b', app: 'a' } });
    expect((await t.post(path(), body)).status).to.equal(201);
    const res = await t.get(path('table'), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Containers', 'Images', 'Pod Labels']);
    expect(res.body.rows[0].cells).to.deep.equal(['table', 'main,side', 'registry.example.com/app:1,busybox', 'app=a,tier=b']);
  });

  const invalid: Array<[string, Body, Cause[]]> = [
    ['no containers', podTemplate('x', { containers: [] }),
      [{ field: 'template.spec.containers', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['a template label key that is not a qualified name', podTemplate('x', {}, { labels: { 'bad key': 'v' } }),
      [{ field: 'template.labels', reason: 'FieldValueInvalid', message: 'Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')' }]],
    ['a template label value that is not a label value', podTemplate('x', {}, { labels: { app: '-bad' } }),
      [{ field: 'template.labels', reason: 'FieldValueInvalid', message: 'Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')' }]],
    ['a template annotation key that is not a qualified name', podTemplate('x', {}, { annotations: { 'a/b/c': 'v' } }),
      [{ field: 'template.annotations', reason: 'FieldValueInvalid', message: 'Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\') with an optional DNS subdomain prefix and \'/\' (e.g. \'example.com/MyName\')' }]],
    ['ephemeral containers', podTemplate('x', { ephemeralContainers: [{ name: 'debug', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }] }),
      [{ field: 'template.spec.ephemeralContainers', reason: 'FieldValueForbidden', message: 'Forbidden: ephemeral containers not allowed in pod template' }]],
    ['an unknown restart policy', podTemplate('x', { restartPolicy: 'Sometimes' }),
      [{ field: 'template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' }]],
    ['an unknown DNS policy', podTemplate('x', { dnsPolicy: 'Nowhere' }),
      [{ field: 'template.spec.dnsPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Nowhere": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"' }]],
    ['a host port other than the container port on the host network', podTemplate('x', { hostNetwork: true, containers: [container({ ports: [{ containerPort: 80, hostPort: 81 }] })] }),
      [{ field: 'template.spec.containers[0].ports[0].hostPort', reason: 'FieldValueInvalid', message: 'Invalid value: 81: must match `containerPort` when `hostNetwork` is true' }]],
    ['a container name that is not a DNS label', podTemplate('x', { containers: [container({ name: 'Bad_Name' })] }),
      [{ field: 'template.spec.containers[0].name', reason: 'FieldValueInvalid', message: 'Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')' }]],
    ['a container without an image', podTemplate('x', { containers: [{ name: 'main' }] }),
      [{ field: 'template.spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' }]],
    ['an activeDeadlineSeconds of 0', podTemplate('x', { activeDeadlineSeconds: 0 }),
      [{ field: 'template.spec.activeDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be between 1 and 2147483647, inclusive' }]],
    ['a volume without a source', podTemplate('x', { volumes: [{ name: 'data' }] }),
      [{ field: 'template.spec.volumes[0]', reason: 'FieldValueRequired', message: 'Required value: must specify a volume type' }]],
  ];

  for (const [what, body, causes] of invalid) {
    it(`refuses ${what} on create`, async () => {
      expectInvalid(await rejected(() => t.post(path(), body)), causes);
    });
  }

  it('validates the template again on update', async () => {
    const created = (await t.post(path(), podTemplate('update'))).body;
    const bad = structuredClone(created);
    bad.template.spec.restartPolicy = 'Sometimes';
    expectInvalid(await rejected(() => t.put(path('update'), bad)),
      [{ field: 'template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' }]);
  });
});
