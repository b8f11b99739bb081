/**
 * Deletion of workloads as kube-apiserver 1.32 does it when no controller-manager runs beside
 * it: a Deployment's ReplicaSets and their Pods (ownerReferences as the real controllers write
 * them) are collected by the server's garbage collector, with each kind's default propagation:
 * apps/v1 kinds and batch/v1 CronJobs delete their dependents in the background, a core/v1
 * ReplicationController and a batch/v1 Job orphan them unless the client asks otherwise
 * (`kubectl delete` always asks for Background), and Foreground waits for the dependents.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'workload-gc';
type Body = Record<string, any>;

const labels = { app: 'web' };
const podSpec = (restartPolicy = 'Always') => ({ restartPolicy, containers: [{ name: 'c', image: 'nginx:1.27' }] });
const template = (restartPolicy?: string) => ({ metadata: { labels }, spec: podSpec(restartPolicy) });
const refTo = (owner: Body) => ({
  apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true,
});

describe('workload deletion and garbage collection', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  async function create(path: string, body: Body): Promise<Body> {
    const res = await t.post(path, body);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  const deployments = `/apis/apps/v1/namespaces/${NS}/deployments`;
  const replicaSets = `/apis/apps/v1/namespaces/${NS}/replicasets`;
  const pods = `/api/v1/namespaces/${NS}/pods`;
  const exists = async (path: string) => (await t.get(path)).status === 200;

  /** A Deployment, its ReplicaSet and two Pods owned as the deployment and replicaset controllers own them. */
  async function tree(name: string): Promise<{ deploy: Body; rs: Body; pods: string[] }> {
    const deploy = await create(deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { selector: { matchLabels: labels }, template: template() } });
    const rs = await create(replicaSets, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `${name}-5d4f8`, labels, ownerReferences: [refTo(deploy)] },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: template() },
    });
    const names = [`${name}-5d4f8-a`, `${name}-5d4f8-b`];
    for (const pod of names) {
      await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, labels, ownerReferences: [refTo(rs)] }, spec: podSpec() });
    }
    return { deploy, rs, pods: names };
  }

  it('a Deployment deleted without options takes its ReplicaSet and their Pods with it (background)', async () => {
    const { rs, pods: names } = await tree('bg');
    const res = await t.del(`${deployments}/bg`);
    expect(res.status, res.text).to.equal(200);
    await eventually(async () => !(await exists(`${replicaSets}/${rs.metadata.name}`)));
    for (const pod of names) await eventually(async () => !(await exists(`${pods}/${pod}`)));
  });

  it('Foreground keeps the Deployment, with the foregroundDeletion finalizer, until its dependents are gone', async () => {
    const { rs, pods: names } = await tree('fg');
    const res = await t.del(`${deployments}/fg`, { propagationPolicy: 'Foreground' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.metadata.finalizers).to.include('foregroundDeletion');
    expect(res.body.metadata.deletionTimestamp).to.be.a('string');
    await eventually(async () => !(await exists(`${deployments}/fg`)));
    expect(await exists(`${replicaSets}/${rs.metadata.name}`)).to.equal(false);
    for (const pod of names) expect(await exists(`${pods}/${pod}`)).to.equal(false);
  });

  it('Orphan leaves the ReplicaSet and removes its ownerReference to the Deployment', async () => {
    const { rs } = await tree('orphan');
    const res = await t.del(`${deployments}/orphan`, { propagationPolicy: 'Orphan' });
    expect(res.status, res.text).to.equal(200);
    await eventually(async () => !(await exists(`${deployments}/orphan`)));
    await eventually(async () => ((await t.get(`${replicaSets}/${rs.metadata.name}`)).body.metadata.ownerReferences ?? []).length === 0);
  });

  it('a ReplicationController (core/v1) orphans its Pods by default; Background collects them', async () => {
    const rcs = `/api/v1/namespaces/${NS}/replicationcontrollers`;
    const rc = await create(rcs, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { selector: labels, template: template() } });
    await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rc-pod', labels, ownerReferences: [refTo(rc)] }, spec: podSpec() });
    expect((await t.del(`${rcs}/rc`)).status).to.equal(200);
    await eventually(async () => !(await exists(`${rcs}/rc`)));
    await eventually(async () => ((await t.get(`${pods}/rc-pod`)).body.metadata.ownerReferences ?? []).length === 0);

    const rc2 = await create(rcs, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc2' }, spec: { selector: labels, template: template() } });
    await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rc2-pod', labels, ownerReferences: [refTo(rc2)] }, spec: podSpec() });
    expect((await t.del(`${rcs}/rc2`, { propagationPolicy: 'Background' })).status).to.equal(200);
    await eventually(async () => !(await exists(`${pods}/rc2-pod`)));
  });

  it('a Job (batch/v1) orphans its Pods by default; a CronJob takes its Jobs with it', async () => {
    const jobs = `/apis/batch/v1/namespaces/${NS}/jobs`;
    const job = await create(jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job' }, spec: { template: { spec: podSpec('Never') } } });
    await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'job-pod', ownerReferences: [refTo(job)] }, spec: podSpec('Never') });
    expect((await t.del(`${jobs}/job`)).status).to.equal(200);
    await eventually(async () => !(await exists(`${jobs}/job`)));
    await eventually(async () => ((await t.get(`${pods}/job-pod`)).body.metadata.ownerReferences ?? []).length === 0);

    const cronJobs = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
    const cj = await create(cronJobs, {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec('OnFailure') } } } },
    });
    await create(jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'cj-1', ownerReferences: [refTo(cj)] }, spec: { template: { spec: podSpec('Never') } } });
    expect((await t.del(`${cronJobs}/cj`)).status).to.equal(200);
    await eventually(async () => !(await exists(`${jobs}/cj-1`)));
  });
});
