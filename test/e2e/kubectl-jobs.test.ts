/**
 * kubectl (1.32) with Jobs and CronJobs (batch/v1): api-resources names `cj` and both kinds,
 * `create job`, `create cronjob` and `apply` (client- and server-side) write objects the server defaults (selector and labels
 * generated), `create job --from=cronjob/...` reads the CronJob and creates a Job it owns,
 * `get` prints kubectl's columns (and the wide ones), `describe` reads both, a bad schedule is refused with
 * robfig/cron's message, and `delete job` (background propagation) removes the Job.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

/** kubectl's columns are set apart by at least three spaces; some headers have single spaces inside. */
function wideTable(stdout: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const [head, ...lines] = stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  return { columns: head, rows: lines.map((cells) => Object.fromEntries(head.map((c, i) => [c, cells[i]]))) };
}

describe('kubectl with Jobs and CronJobs', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-batch', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists cronjobs (cj) and jobs, namespaced, at batch/v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=batch'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES ?? '', r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([
      ['cronjobs', 'cj', 'batch/v1', 'true', 'CronJob'],
      ['jobs', '', 'batch/v1', 'true', 'Job'],
    ]);
  });

  it('create job, get jobs (and -o wide), delete job', async () => {
    expect((await ok(['create', 'job', 'j', '--image=busybox', '--', 'echo', 'hi'])).stdout).to.contain('job.batch/j created');
    const job = JSON.parse((await ok(['get', 'job', 'j', '-o', 'json'])).stdout);
    const uid = job.metadata.uid;
    expect(job.spec).to.deep.include({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false });
    expect(job.spec.selector).to.deep.equal({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(job.spec.template.metadata.labels).to.include({ 'job-name': 'j', 'controller-uid': uid });
    expect(job.metadata.labels).to.deep.equal(job.spec.template.metadata.labels);
    expect(job.spec.template.spec.containers[0].command).to.deep.equal(['echo', 'hi']);

    let table = wideTable((await ok(['get', 'jobs'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'j')).to.deep.include({ STATUS: 'Running', COMPLETIONS: '0/1' });
    table = wideTable((await ok(['get', 'jobs', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    // DURATION is empty until the job starts: the row is matched cell by cell (NAME STATUS COMPLETIONS AGE CONTAINERS IMAGES SELECTOR).
    const row = (await ok(['get', 'jobs', 'j', '-o', 'wide'])).stdout.trim().split('\n')[1].trim().split(/\s+/);
    expect([...row.slice(0, 3), ...row.slice(4)]).to.deep.equal(['j', 'Running', '0/1', 'j', 'busybox', `batch.kubernetes.io/controller-uid=${uid}`]);

    expect((await ok(['delete', 'job', 'j'])).stdout).to.contain('job.batch "j" deleted');
    expect((await fails(['get', 'job', 'j'])).stderr).to.contain('NotFound');
  });

  it('create cronjob, get cj, create job --from=cronjob, refuse a bad schedule', async () => {
    expect((await ok(['create', 'cronjob', 'c', '--image=busybox', '--schedule=*/5 * * * *'])).stdout).to.contain('cronjob.batch/c created');
    let table = wideTable((await ok(['get', 'cj'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'c')).to.deep.include({ SCHEDULE: '*/5 * * * *', TIMEZONE: '<none>', SUSPEND: 'False', ACTIVE: '0', 'LAST SCHEDULE': '<none>' });
    table = wideTable((await ok(['get', 'cronjobs', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table.rows.find((r) => r.NAME === 'c')).to.deep.include({ CONTAINERS: 'c', IMAGES: 'busybox', SELECTOR: '<none>' });

    expect((await ok(['create', 'job', 'from-c', '--from=cronjob/c'])).stdout).to.contain('job.batch/from-c created');
    const cron = JSON.parse((await ok(['get', 'cronjob', 'c', '-o', 'json'])).stdout);
    const job = JSON.parse((await ok(['get', 'job', 'from-c', '-o', 'json'])).stdout);
    expect(job.metadata.annotations).to.include({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(job.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'c', uid: cron.metadata.uid, controller: true }]);
    expect(job.spec.template.spec.restartPolicy).to.equal('OnFailure');
    expect(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']).to.equal(job.metadata.uid);

    const describedJob = (await ok(['describe', 'job', 'from-c'])).stdout;
    expect(describedJob).to.match(/Controlled By:\s+CronJob\/c/).and.match(/Parallelism:\s+1/).and.match(/Completions:\s+1/);
    const describedCron = (await ok(['describe', 'cronjob', 'c'])).stdout;
    expect(describedCron).to.match(/Schedule:\s+\*\/5 \* \* \* \*/).and.match(/Concurrency Policy:\s+Allow/).and.match(/Suspend:\s+False/);

    const refused = await fails(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=0 25 * * *']);
    expect(refused.stderr).to.contain('spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25');
    const tz = await fails(['create', 'cronjob', 'tz', '--image=busybox', '--schedule=CRON_TZ=UTC 0 0 * * *']);
    expect(tz.stderr).to.contain('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  });

  it('apply a Job (client-side, then server-side) and a CronJob', async () => {
    const job = (labels: Record<string, string>) => ({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'applied', labels },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
    });
    expect((await ok(['apply', '-f', e2e.manifest('job.yaml', job({ app: 'a' }))])).stdout).to.contain('job.batch/applied created');
    expect((await ok(['apply', '-f', e2e.manifest('job2.yaml', job({ app: 'b' }))])).stdout).to.contain('job.batch/applied configured');
    // The client-side apply owns app=b: a server-side apply that keeps it and adds a label does not conflict.
    expect((await ok(['apply', '--server-side', '-f', e2e.manifest('job3.yaml', job({ app: 'b', tier: 'batch' }))])).stdout).to.contain('job.batch/applied serverside-applied');
    const got = JSON.parse((await ok(['get', 'job', 'applied', '-o', 'json'])).stdout);
    expect(got.metadata.labels).to.deep.equal({ app: 'b', tier: 'batch' });
    expect(got.metadata.generation).to.equal(1);
    const cron = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'applied' }, spec: { schedule: '@daily', timeZone: 'Europe/Paris', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } } } } } };
    expect((await ok(['apply', '-f', e2e.manifest('cron.yaml', cron)])).stdout).to.contain('cronjob.batch/applied created');
    const row = wideTable((await ok(['get', 'cj', 'applied'])).stdout).rows[0];
    expect(row).to.deep.include({ SCHEDULE: '@daily', TIMEZONE: 'Europe/Paris' });
  });

  it('explain knows the batch/v1 fields', async () => {
    const out = (await ok(['explain', 'cronjob.spec.schedule'])).stdout;
    expect(out).to.contain('GROUP:      batch').and.contain('The schedule in Cron format');
  });
});
