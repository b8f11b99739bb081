/**
 * batch/v1 CronJob over HTTPS against a real etcd: Kubernetes 1.32's defaults (concurrency
 * policy, suspend, history limits, the jobTemplate's pod template), validation (the schedule as
 * robfig/cron parses it, TZ refused in it, the IANA time zone, the 52-character name, the
 * jobTemplate as a JobSpec without selector; each answered 422 with Kubernetes' causes and
 * nothing stored), status only through /status, generation on spec changes, the table, short
 * name and category in discovery, and background deletion by default.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'cronjobs';
const path = (name = '') => `/apis/batch/v1/namespaces/${NS}/cronjobs${name ? `/${name}` : ''}`;
type Body = Record<string, any>;
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

const jobTemplate = (spec: Body = {}): Body => ({ spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec } });
const cronJob = (name: string, spec: Body = {}, extra: Body = {}): Body =>
  ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '*/5 * * * *', jobTemplate: jobTemplate(), ...spec }, ...extra });

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'CronJob', causes);
  expect(res.body.details).to.include({ group: 'batch' });
}

describe('CronJob (batch/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('defaults as Kubernetes 1.32, without a Job\'s defaults or selector in the jobTemplate', async () => {
    const res = await t.post(path(), cronJob('defaults', {}, { status: { lastScheduleTime: '2026-01-02T03:04:05Z' } }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.metadata.generation).to.equal(1);
    expect(res.body.status).to.deep.equal({});
    expect(res.body.spec).to.deep.include({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const jobSpec = res.body.spec.jobTemplate.spec;
    expect(jobSpec).not.to.have.any.keys('selector', 'completions', 'parallelism', 'backoffLimit', 'manualSelector');
    expect(jobSpec.template.spec).to.deep.include({ dnsPolicy: 'ClusterFirst', restartPolicy: 'OnFailure' });
    expect(res.body.spec.jobTemplate.metadata).to.deep.equal({ creationTimestamp: null });
  });

  it('defaults the jobTemplate\'s pod failure policy patterns to status True', async () => {
    const podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] };
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } };
    const res = await t.post(path(), cronJob('pfp', { jobTemplate: { spec: { podFailurePolicy, template } } }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.jobTemplate.spec.podFailurePolicy.rules[0].onPodConditions).to.deep.equal([{ type: 'DisruptionTarget', status: 'True' }]);
  });

  it('accepts descriptors, steps, names and a time zone', async () => {
    const schedules = ['@hourly', '@every 1h30m', '0 9-17/2 * jan-jun mon-fri', '@yearly'];
    for (const [i, schedule] of schedules.entries()) {
      const res = await t.post(path(), cronJob(`ok-${i}`, { schedule, timeZone: 'Europe/Berlin' }));
      expect(res.status, `${schedule}: ${res.text}`).to.equal(201);
    }
  });

  describe('validation (ValidateCronJobCreate)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['an empty schedule', { schedule: '' }, [{ field: 'spec.schedule', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a schedule of three fields', { schedule: '* * *' }, [
        { field: 'spec.schedule', reason: 'FieldValueInvalid', message: 'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]' },
      ]],
      ['an hour out of range', { schedule: '0 25 * * *' }, [
        { field: 'spec.schedule', reason: 'FieldValueInvalid', message: 'Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25' },
      ]],
      ['an unknown descriptor', { schedule: '@fortnightly' }, [
        { field: 'spec.schedule', reason: 'FieldValueInvalid', message: 'Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly' },
      ]],
      ['TZ in the schedule', { schedule: 'TZ=UTC 0 0 * * *' }, [
        { field: 'spec.schedule', reason: 'FieldValueInvalid', message: 'Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead' },
      ]],
      ['an unknown time zone', { timeZone: 'Mars/Olympus' }, [
        { field: 'spec.timeZone', reason: 'FieldValueInvalid', message: 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' },
      ]],
      ['an empty time zone', { timeZone: '' }, [
        { field: 'spec.timeZone', reason: 'FieldValueInvalid', message: 'Invalid value: "": timeZone must be nil or non-empty string' },
      ]],
      ['the Local time zone', { timeZone: 'Local' }, [
        { field: 'spec.timeZone', reason: 'FieldValueInvalid', message: 'Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones' },
      ]],
      ['an unknown concurrency policy', { concurrencyPolicy: 'Sometimes' }, [
        { field: 'spec.concurrencyPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"' },
      ]],
      ['negative limits and deadline', { startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -2, failedJobsHistoryLimit: -3 }, [
        { field: 'spec.startingDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'spec.successfulJobsHistoryLimit', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' },
        { field: 'spec.failedJobsHistoryLimit', reason: 'FieldValueInvalid', message: 'Invalid value: -3: must be greater than or equal to 0' },
      ]],
      ['a selector and manualSelector in the jobTemplate', { jobTemplate: jobTemplate({ selector: { matchLabels: { a: 'b' } }, manualSelector: true }) }, [
        { field: 'spec.jobTemplate.spec.selector', reason: 'FieldValueInvalid', message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated' },
        { field: 'spec.jobTemplate.spec.manualSelector', reason: 'FieldValueNotSupported', message: 'Unsupported value: true: supported values: "nil", "false"' },
      ]],
      ['a bad JobSpec in the jobTemplate', { jobTemplate: { spec: { parallelism: -1, template: { spec: { restartPolicy: 'Always', containers: [{ name: 'main', image: 'busybox' }] } } } } }, [
        { field: 'spec.jobTemplate.spec.parallelism', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'spec.jobTemplate.spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"' },
      ]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), cronJob(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('refuses a name of more than 52 characters on create only', async () => {
      const name = 'c'.repeat(53);
      const res = await t.post(path(), cronJob(name));
      expectInvalid(res, [{ field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${name}": must be no more than 52 characters` }]);
    });
  });

  describe('updates and status', () => {
    it('validates an updated spec, bumps the generation on spec changes only and keeps the status', async () => {
      const created = (await t.post(path(), cronJob('updated'))).body;
      const bad = await rejectedLeavingStore(t, path(), () => t.put(path('updated'), { ...created, spec: { ...created.spec, schedule: 'nonsense' } }));
      expectInvalid(bad, [{ field: 'spec.schedule', reason: 'FieldValueInvalid', message: 'Invalid value: "nonsense": expected exactly 5 fields, found 1: [nonsense]' }]);
      const labelled = await t.put(path('updated'), { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { active: [{ kind: 'Job', name: 'x' }] } });
      expect(labelled.status, labelled.text).to.equal(200);
      expect(labelled.body.metadata.generation).to.equal(1);
      expect(labelled.body.status).to.deep.equal({});
      const suspended = await t.put(path('updated'), { ...labelled.body, spec: { ...labelled.body.spec, suspend: true } });
      expect(suspended.body.metadata.generation).to.equal(2);
    });

    it('writes the status only through /status, which keeps the spec', async () => {
      const created = (await t.post(path(), cronJob('with-status'))).body;
      const status = { active: [{ kind: 'Job', namespace: NS, name: 'with-status-1', uid: 'u1', apiVersion: 'batch/v1' }], lastScheduleTime: '2026-01-02T03:00:00Z' };
      const res = await t.put(path('with-status/status'), { ...created, spec: { ...created.spec, schedule: '@daily' }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal(status);
      expect(res.body.spec.schedule).to.equal('*/5 * * * *');
      expect(res.body.metadata.generation).to.equal(1);
    });
  });

  describe('reads', () => {
    it('prints NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE and wide CONTAINERS IMAGES SELECTOR', async () => {
      const created = (await t.post(path(), cronJob('table', { timeZone: 'Asia/Tokyo' }))).body;
      await t.post(path(), cronJob('table-plain', { schedule: '@hourly' }));
      const table = await t.get(path(), { headers: TABLE });
      expect(table.body.columnDefinitions.map((c: Body) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0], ['Schedule', 'string', 0], ['Timezone', 'string', 0], ['Suspend', 'boolean', 0], ['Active', 'integer', 0],
        ['Last Schedule', 'string', 0], ['Age', 'string', 0], ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1],
      ]);
      const row = (name: string) => table.body.rows.find((r: Body) => r.cells[0] === name).cells;
      expect(row('table').slice(0, 6)).to.deep.equal(['table', '*/5 * * * *', 'Asia/Tokyo', 'False', 0, '<none>']);
      expect(row('table').slice(7)).to.deep.equal(['main', 'busybox', '<none>']);
      expect(row('table-plain').slice(1, 3)).to.deep.equal(['@hourly', '<none>']);
      await t.put(path('table/status'), { ...created, status: { active: [{ kind: 'Job', name: 'a' }, { kind: 'Job', name: 'b' }] } });
      expect((await t.get(path('table'), { headers: TABLE })).body.rows[0].cells[4]).to.equal(2);
    });

    it('is in discovery as batch/v1 cronjobs (cj) in category all', async () => {
      const list = (await t.get('/apis/batch/v1')).body;
      expect(list.resources.find((r: Body) => r.name === 'cronjobs')).to.deep.include({ kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'] });
      const group = (await t.get('/apis')).body.groups.find((g: Body) => g.name === 'batch');
      expect(group.preferredVersion).to.deep.equal({ groupVersion: 'batch/v1', version: 'v1' });
    });
  });

  it('deletes its Jobs in the background when no policy is named (DeleteDependents)', async () => {
    await t.post(path(), cronJob('deleted'));
    const res = await t.del(path('deleted'));
    expect(res.status, res.text).to.equal(200);
    expect(res.body.metadata.finalizers ?? []).not.to.include('orphan');
    expect((await t.get(path('deleted'))).status).to.equal(404);
  });
});
