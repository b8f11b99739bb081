/**
 * batch/v1 Job over HTTPS against a real etcd: Kubernetes 1.32's defaults (counts, backoff
 * limit, completion mode, pod replacement policy, the pod template's), the generated selector
 * and labels from the Job's uid and name, validation (each bad spec answered 422 with the
 * cause's field path, reason and message, and nothing stored), the update rules (immutable
 * selector, template and completion mode; a suspended Job that never started may change its
 * scheduling directives; completions with parallelism in an Indexed Job), status only through
 * /status with its core rules, generation on spec changes, the table, the field selector
 * status.successful, orphaning by default on DELETE, discovery and --runtime-config.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'jobs';
const path = (name = '') => `/apis/batch/v1/namespaces/${NS}/jobs${name ? `/${name}` : ''}`;
type Body = Record<string, any>;
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

const podTemplate = (extra: Body = {}): Body => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }], ...extra } });
const job = (name: string, spec: Body = {}, extra: Body = {}): Body =>
  ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: podTemplate(), ...spec }, ...extra });

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'Job', causes);
  expect(res.body.details).to.include({ group: 'batch' });
}

describe('Job (batch/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults and the generated selector', () => {
    it('defaults as Kubernetes 1.32 and generates the selector and labels from the uid and name', async () => {
      const res = await t.post(path(), job('defaults', {}, { status: { succeeded: 3 } }));
      expect(res.status, res.text).to.equal(201);
      const { uid } = res.body.metadata;
      expect(res.body.metadata.generation).to.equal(1);
      expect(res.body.status).to.deep.equal({});
      const spec = res.body.spec;
      expect(spec).to.deep.include({
        parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed',
        manualSelector: false, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      });
      const generated = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'defaults', 'controller-uid': uid, 'job-name': 'defaults' };
      expect(spec.template.metadata.labels).to.deep.equal(generated);
      // A Job without labels takes its template's (Kubernetes defaults them on every read from storage).
      expect(res.body.metadata.labels).to.deep.equal(generated);
      expect((await t.get(`${path()}?labelSelector=job-name=defaults`)).body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['defaults']);
      expect(spec.template.spec).to.deep.include({ dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
      expect(spec.template.spec.containers[0]).to.deep.include({ terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'Always' });
    });

    it('names a generated name in the labels, and copies the template labels to a Job without labels', async () => {
      const res = await t.post(path(), { ...job('', { template: { ...podTemplate(), metadata: { labels: { app: 'web' } } } }), metadata: { generateName: 'gen-' } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.metadata.labels).to.deep.equal({ app: 'web' });
      expect(res.body.spec.template.metadata.labels['job-name']).to.equal(res.body.metadata.name);
      expect(res.body.spec.template.metadata.labels['batch.kubernetes.io/job-name']).to.equal(res.body.metadata.name);
    });

    it('sets only one count from the other, and backoffLimit max int32 with backoffLimitPerIndex', async () => {
      const a = await t.post(path(), job('completions-only', { completions: 5 }));
      expect(a.body.spec).to.deep.include({ completions: 5, parallelism: 1 });
      const b = await t.post(path(), job('parallelism-only', { parallelism: 3 }));
      expect(b.body.spec).to.deep.include({ parallelism: 3 });
      expect(b.body.spec).not.to.have.property('completions');
      const c = await t.post(path(), job('per-index', { completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1 }));
      expect(c.status, c.text).to.equal(201);
      expect(c.body.spec.backoffLimit).to.equal(2147483647);
      const d = await t.post(path(), job('with-pfp', { podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }));
      expect(d.status, d.text).to.equal(201);
      expect(d.body.spec.podReplacementPolicy).to.equal('Failed');
      expect(d.body.spec.podFailurePolicy.rules[0].onPodConditions[0].status).to.equal('True');
    });

    it('keeps a manual selector and the template labels as given', async () => {
      const spec = { manualSelector: true, selector: { matchLabels: { app: 'manual' } }, template: { ...podTemplate(), metadata: { labels: { app: 'manual' } } } };
      const res = await t.post(path(), job('manual', spec));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.selector).to.deep.equal({ matchLabels: { app: 'manual' } });
      expect(res.body.spec.template.metadata.labels).to.deep.equal({ app: 'manual' });
    });
  });

  describe('validation (ValidateJob)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['negative counts', { parallelism: -1, completions: -2, activeDeadlineSeconds: -3, backoffLimit: -4, ttlSecondsAfterFinished: -5 }, [
        { field: 'spec.parallelism', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'spec.completions', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' },
        { field: 'spec.activeDeadlineSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: -3: must be greater than or equal to 0' },
        { field: 'spec.backoffLimit', reason: 'FieldValueInvalid', message: 'Invalid value: -4: must be greater than or equal to 0' },
        { field: 'spec.ttlSecondsAfterFinished', reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than or equal to 0' },
      ]],
      ['restartPolicy Always', { template: podTemplate({ restartPolicy: 'Always' }) }, [
        { field: 'spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"' },
      ]],
      ['restartPolicy unset (defaulted to Always)', { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } }, [
        { field: 'spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"' },
      ]],
      ['restartPolicy OnFailure with a podFailurePolicy', {
        template: podTemplate({ restartPolicy: 'OnFailure' }), podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }] },
      }, [{ field: 'spec.template.spec.restartPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified' }]],
      ['no containers', { template: { spec: { restartPolicy: 'Never' } } }, [
        { field: 'spec.template.spec.containers', reason: 'FieldValueRequired', message: 'Required value' },
      ]],
      ['an unknown completionMode', { completionMode: 'Sometimes' }, [
        { field: 'spec.completionMode', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"' },
      ]],
      ['Indexed without completions', { completionMode: 'Indexed', parallelism: 2 }, [
        { field: 'spec.completions', reason: 'FieldValueRequired', message: 'Required value: when completion mode is Indexed' },
      ]],
      ['backoffLimitPerIndex and maxFailedIndexes without Indexed', { backoffLimitPerIndex: 1, maxFailedIndexes: 1 }, [
        { field: 'spec.backoffLimitPerIndex', reason: 'FieldValueInvalid', message: 'Invalid value: 1: requires indexed completion mode' },
        { field: 'spec.maxFailedIndexes', reason: 'FieldValueInvalid', message: 'Invalid value: 1: requires indexed completion mode' },
      ]],
      ['maxFailedIndexes without backoffLimitPerIndex, above completions', { completionMode: 'Indexed', completions: 2, maxFailedIndexes: 3 }, [
        { field: 'spec.backoffLimitPerIndex', reason: 'FieldValueRequired', message: 'Required value: when maxFailedIndexes is specified' },
        { field: 'spec.maxFailedIndexes', reason: 'FieldValueInvalid', message: 'Invalid value: 3: must be less than or equal to completions' },
      ]],
      ['a successPolicy on a NonIndexed Job', { successPolicy: { rules: [{ succeededCount: 1 }] } }, [{
        field: 'spec.successPolicy', reason: 'FieldValueInvalid',
        message: 'Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}: requires indexed completion mode',
      }]],
      ['successPolicy rules out of range', { completionMode: 'Indexed', completions: 3, successPolicy: { rules: [{ succeededIndexes: '0-5', succeededCount: 4 }, {}] } }, [
        { field: 'spec.successPolicy.rules[0].succeededIndexes', reason: 'FieldValueInvalid', message: 'Invalid value: "0-5": error parsing succeededIndexes: too large index: "5"' },
        { field: 'spec.successPolicy.rules[0].succeededCount', reason: 'FieldValueInvalid', message: 'Invalid value: 4: must be less than or equal to 3 (the number of specified completions)' },
        { field: 'spec.successPolicy.rules[0].succeededCount', reason: 'FieldValueInvalid', message: 'Invalid value: 4: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)' },
        { field: 'spec.successPolicy.rules[1]', reason: 'FieldValueRequired', message: 'Required value: at least one of succeededCount or succeededIndexes must be specified' },
      ]],
      ['podFailurePolicy rules', {
        backoffLimitPerIndex: 1, completionMode: 'Indexed', completions: 1,
        podFailurePolicy: {
          rules: [
            { action: 'Explode', onExitCodes: { containerName: 'other', operator: 'In', values: [3, 0, 3] } },
            { action: '', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }], onExitCodes: { operator: 'Within', values: [] } },
            { action: 'Count' },
          ],
        },
      }, [
        { field: 'spec.podFailurePolicy.rules[0].action', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"' },
        { field: 'spec.podFailurePolicy.rules[0].onExitCodes.containerName', reason: 'FieldValueInvalid', message: 'Invalid value: "other": must be one of the container or initContainer names in the pod template' },
        { field: 'spec.podFailurePolicy.rules[0].onExitCodes.values[1]', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must not be 0 for the In operator' },
        { field: 'spec.podFailurePolicy.rules[0].onExitCodes.values[2]', reason: 'FieldValueDuplicate', message: 'Duplicate value: 3' },
        { field: 'spec.podFailurePolicy.rules[0].onExitCodes.values', reason: 'FieldValueInvalid', message: 'Invalid value: []int32{3, 0, 3}: must be ordered' },
        { field: 'spec.podFailurePolicy.rules[1].action', reason: 'FieldValueRequired', message: 'Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]' },
        { field: 'spec.podFailurePolicy.rules[1].onExitCodes.operator', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Within": supported values: "In", "NotIn"' },
        { field: 'spec.podFailurePolicy.rules[1].onExitCodes.values', reason: 'FieldValueInvalid', message: 'Invalid value: []int32{}: at least one value is required' },
        { field: 'spec.podFailurePolicy.rules[1].onPodConditions[0].status', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
        { field: 'spec.podFailurePolicy.rules[1]', reason: 'FieldValueInvalid', message: 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported' },
        { field: 'spec.podFailurePolicy.rules[2]', reason: 'FieldValueInvalid', message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required' },
      ]],
      ['FailIndex without backoffLimitPerIndex', { podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'NotIn', values: [0] } }] } }, [
        { field: 'spec.podFailurePolicy.rules[0].action', reason: 'FieldValueInvalid', message: 'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set' },
      ]],
      ['podReplacementPolicy', { podReplacementPolicy: 'Never' }, [
        { field: 'spec.podReplacementPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Never": supported values: "Failed", "TerminatingOrFailed"' },
      ]],
      ['managedBy', { managedBy: 'not-a-path' }, [
        { field: 'spec.managedBy', reason: 'FieldValueInvalid', message: 'Invalid value: "not-a-path": must be a domain-prefixed path (such as "acme.io/foo")' },
      ]],
      ['a manual selector that does not match the template', { manualSelector: true, selector: { matchLabels: { app: 'a' } } }, [
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string(nil): `selector` does not match template `labels`' },
      ]],
      ['a manual selector missing', { manualSelector: true }, [{ field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a generated selector given another value', { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'mine' } } }, [
        { field: 'spec.selector', reason: 'FieldValueInvalid', message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"mine"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated' },
        { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"UID", "batch.kubernetes.io/job-name":"invalid-17", "controller-uid":"UID", "job-name":"invalid-17"}: `selector` does not match template `labels`' },
      ]],
      // The selector (on the prefixed label) still matches: only the legacy label is wrong.
      ['a wrong controller-uid label on the template', { template: { ...podTemplate(), metadata: { labels: { 'controller-uid': 'other' } } } }, [
        { field: 'spec.template.metadata.labels[controller-uid]', reason: 'FieldValueInvalid', message: "Invalid value: map[string]string{\"batch.kubernetes.io/controller-uid\":\"UID\", \"batch.kubernetes.io/job-name\":\"invalid-18\", \"controller-uid\":\"other\", \"job-name\":\"invalid-18\"}: must be 'UID'" },
      ]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), job(`invalid-${i}`, spec)));
        // The uid is drawn by the server; the messages name it.
        const uidOf = (m: string) => /controller-uid":"([0-9a-f-]{36})"/.exec(m)?.[1];
        const uid = (res.body.details?.causes ?? []).map((c: Cause) => uidOf(c.message)).find(Boolean) ?? 'UID';
        expectInvalid(res, causes.map((c) => ({ ...c, message: c.message.replaceAll('UID', uid) })));
        expect((await t.get(path(`invalid-${i}`))).status).to.equal(404);
      });
    });

    it('refuses an Indexed Job whose last pod hostname is not a DNS label', async () => {
      const name = `a${'b'.repeat(60)}`;
      const res = await t.post(path(), job(name, { completionMode: 'Indexed', completions: 100 }));
      expectInvalid(res, [{ field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${name}": will not able to create pod with invalid DNS label: ${name}-99` }]);
    });
  });

  describe('updates (ValidateJobUpdate)', () => {
    it('keeps the selector, template, completions and completion mode immutable', async () => {
      const created = (await t.post(path(), job('immutable'))).body;
      const changes: Array<[string, Body]> = [
        ['spec.completions', { completions: 3 }],
        ['spec.completionMode', { completionMode: 'Indexed', completions: 1 }],
        ['spec.template', { template: { ...created.spec.template, spec: { ...created.spec.template.spec, containers: [{ ...created.spec.template.spec.containers[0], image: 'other' }] } } }],
        ['spec.selector', { selector: { matchLabels: { ...created.spec.selector.matchLabels, more: 'x' } } }],
      ];
      for (const [field, change] of changes) {
        const res = await rejectedLeavingStore(t, path(), () => t.put(path('immutable'), { ...created, spec: { ...created.spec, ...change } }));
        expect(res.status, res.text).to.equal(422);
        const causes = res.body.details.causes as Cause[];
        expect(causes.some((c) => c.field === field && c.reason === 'FieldValueInvalid' && c.message.endsWith(': field is immutable')), JSON.stringify(causes)).to.equal(true);
      }
      const ok = await t.put(path('immutable'), { ...created, spec: { ...created.spec, parallelism: 4, activeDeadlineSeconds: 60, suspend: true } });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.metadata.generation).to.equal(2);
    });

    it('lets a suspended Job that never started change its node selector, tolerations and template labels', async () => {
      const created = (await t.post(path(), job('suspended', { suspend: true }))).body;
      const template = created.spec.template;
      const changed = {
        ...template, metadata: { ...template.metadata, labels: { ...template.metadata.labels, extra: 'yes' }, annotations: { a: 'b' } },
        spec: { ...template.spec, nodeSelector: { zone: 'a' }, tolerations: [{ key: 'k', operator: 'Exists' }] },
      };
      const res = await t.put(path('suspended'), { ...created, spec: { ...created.spec, template: changed } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.template.spec.nodeSelector).to.deep.equal({ zone: 'a' });
      const image = await t.put(path('suspended'), { ...res.body, spec: { ...res.body.spec, template: { ...changed, spec: { ...changed.spec, containers: [{ ...changed.spec.containers[0], image: 'other' }] } } } });
      expect(image.status, image.text).to.equal(422);
      // A running Job may not.
      const running = (await t.post(path(), job('running'))).body;
      const moved = await t.put(path('running'), { ...running, spec: { ...running.spec, template: { ...running.spec.template, spec: { ...running.spec.template.spec, nodeSelector: { zone: 'a' } } } } });
      expect(moved.status, moved.text).to.equal(422);
    });

    it('reports a bad spec twice on update, as Kubernetes (ValidateJob and ValidateJobUpdate both validate it)', async () => {
      const created = (await t.post(path(), job('twice'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('twice'), { ...created, spec: { ...created.spec, parallelism: -1 } }));
      const cause = { field: 'spec.parallelism', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' };
      expectInvalid(res, [cause, cause]);
    });

    it('lets an Indexed Job change completions only together with parallelism', async () => {
      const created = (await t.post(path(), job('elastic', { completionMode: 'Indexed', completions: 2, parallelism: 2 }))).body;
      const both = await t.put(path('elastic'), { ...created, spec: { ...created.spec, completions: 4, parallelism: 4 } });
      expect(both.status, both.text).to.equal(200);
      const alone = await t.put(path('elastic'), { ...both.body, spec: { ...both.body.spec, completions: 5 } });
      expectInvalid(alone, [{ field: 'spec.completions', reason: 'FieldValueInvalid', message: 'Invalid value: 5: can only be modified in tandem with spec.parallelism' }]);
    });
  });

  describe('status', () => {
    it('keeps the status on a main update and the spec on a /status update; generation counts spec changes only', async () => {
      const created = (await t.post(path(), job('with-status'))).body;
      const main = await t.put(path('with-status'), { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { active: 9 } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status).to.deep.equal({});
      expect(main.body.metadata.generation).to.equal(1);
      const status = { active: 1, ready: 1, startTime: '2026-01-02T03:04:05Z', conditions: [] };
      const res = await t.put(path('with-status/status'), { ...main.body, spec: { ...main.body.spec, parallelism: 7 }, status });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.include({ active: 1, ready: 1, startTime: '2026-01-02T03:04:05Z' });
      expect(res.body.spec.parallelism).to.equal(1);
      expect(res.body.metadata.generation).to.equal(1);
      expect((await t.get(path('with-status/status'))).body.status.active).to.equal(1);
    });

    it('refuses bad status updates (ValidateJobUpdateStatus)', async () => {
      const created = (await t.post(path(), job('bad-status'))).body;
      const done = [{ type: 'Complete', status: 'True' }];
      const first = await t.put(path('bad-status/status'), {
        ...created, status: { succeeded: 2, failed: 1, startTime: '2026-01-02T03:00:00Z', completionTime: '2026-01-02T03:04:05Z', conditions: done },
      });
      expect(first.status, first.text).to.equal(200);
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('bad-status/status'), {
        ...first.body,
        status: {
          active: -1, ready: 2, succeeded: 1, failed: 0, startTime: '2026-01-02T03:00:00Z', completionTime: '2026-01-03T00:00:00Z', conditions: [{ type: 'Failed', status: 'True' }],
          uncountedTerminatedPods: { succeeded: ['a', ''], failed: ['a'] },
        },
      }));
      expectInvalid(res, [
        { field: 'status.active', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'status.uncountedTerminatedPods.succeeded[1]', reason: 'FieldValueInvalid', message: 'Invalid value: "": must not be empty' },
        { field: 'status.uncountedTerminatedPods.failed[0]', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' },
        { field: 'status.ready', reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot set more ready pods than active' },
        { field: 'status.conditions', reason: 'FieldValueInvalid', message: 'Invalid value: cannot disable the terminal Complete=True condition' },
        { field: 'status.failed', reason: 'FieldValueInvalid', message: 'Invalid value: 0: cannot decrease the failed counter' },
        { field: 'status.succeeded', reason: 'FieldValueInvalid', message: 'Invalid value: 1: cannot decrease the succeeded counter' },
        { field: 'status.completionTime', reason: 'FieldValueInvalid', message: 'Invalid value: 2026-01-03 00:00:00 +0000 UTC: completionTime cannot be mutated' },
        { field: 'status.completionTime', reason: 'FieldValueInvalid', message: 'Invalid value: 2026-01-03 00:00:00 +0000 UTC: cannot set completionTime when there is no Complete=True condition' },
        {
          field: 'status.uncountedTerminatedPods', reason: 'FieldValueInvalid',
          message: 'Invalid value: batch.UncountedTerminatedPods{Succeeded:[]types.UID{"a", ""}, Failed:[]types.UID{"a"}}: uncountedTerminatedPods needs to be empty for finished job',
        },
      ]);
    });

    it('refuses a finished Job without its times, and completed indexes a NonIndexed Job cannot have', async () => {
      const created = (await t.post(path(), job('unfinished'))).body;
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('unfinished/status'), {
        ...created, status: { completedIndexes: '0-3', conditions: [{ type: 'Complete', status: 'True' }] },
      }));
      expectInvalid(res, [
        { field: 'status.completionTime', reason: 'FieldValueRequired', message: 'Required value: completionTime is required for Complete jobs' },
        { field: 'status.startTime', reason: 'FieldValueRequired', message: 'Required value: startTime is required for finished job' },
        { field: 'status.completedIndexes', reason: 'FieldValueInvalid', message: 'Invalid value: "0-3": error parsing completedIndexes: too large index: "3"' },
        { field: 'status.completedIndexes', reason: 'FieldValueInvalid', message: 'Invalid value: "0-3": cannot set non-empty completedIndexes when non-indexed completion mode' },
      ]);
      const backwards = await t.put(path('unfinished/status'), { ...created, status: { startTime: '2026-01-02T03:00:00Z', completionTime: '2026-01-02T02:00:00Z', conditions: [{ type: 'Complete', status: 'True' }] } });
      expectInvalid(backwards, [
        { field: 'status.completionTime', reason: 'FieldValueInvalid', message: 'Invalid value: 2026-01-02 02:00:00 +0000 UTC: completionTime cannot be set before startTime' },
      ]);
    });
  });

  describe('reads', () => {
    it('prints NAME STATUS COMPLETIONS DURATION AGE and wide CONTAINERS IMAGES SELECTOR', async () => {
      const created = (await t.post(path(), job('table', { parallelism: 3, completions: null }))).body;
      const table = await t.get(path('table'), { headers: TABLE });
      expect(table.status, table.text).to.equal(200);
      expect(table.body.columnDefinitions.map((c: Body) => [c.name, c.priority])).to.deep.equal([
        ['Name', 0], ['Status', 0], ['Completions', 0], ['Duration', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
      ]);
      const cells = table.body.rows[0].cells;
      expect(cells.slice(0, 4)).to.deep.equal(['table', 'Running', '0/1 of 3', '']);
      expect(cells.slice(5)).to.deep.equal(['main', 'busybox', `batch.kubernetes.io/controller-uid=${created.metadata.uid}`]);
      const finished = await t.put(path('table/status'), {
        ...created, status: { succeeded: 1, startTime: '2026-01-02T03:00:00Z', completionTime: '2026-01-02T03:02:30Z', conditions: [{ type: 'Complete', status: 'True' }] },
      });
      expect(finished.status, finished.text).to.equal(200);
      const after = (await t.get(path('table'), { headers: TABLE })).body.rows[0].cells;
      expect(after.slice(1, 4)).to.deep.equal(['Complete', '1/1 of 3', '2m30s']);
    });

    it('selects by status.successful and refuses other fields', async () => {
      const created = (await t.post(path(), job('successful'))).body;
      await t.put(path('successful/status'), { ...created, status: { succeeded: 5 } });
      const five = await t.get(`${path()}?fieldSelector=status.successful=5`);
      expect(five.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['successful']);
      const none = await t.get(`${path()}?fieldSelector=status.successful=4`);
      expect(none.body.items).to.deep.equal([]);
      const bad = await t.get(`${path()}?fieldSelector=spec.suspend=true`);
      expect(bad.status).to.equal(400);
    });

    it('is in discovery as batch/v1 jobs with its status subresource, in category all', async () => {
      const list = (await t.get('/apis/batch/v1')).body;
      const names = list.resources.map((r: Body) => r.name);
      expect(names).to.include.members(['jobs', 'jobs/status', 'cronjobs', 'cronjobs/status']);
      const jobs = list.resources.find((r: Body) => r.name === 'jobs');
      expect(jobs).to.deep.include({ kind: 'Job', namespaced: true, categories: ['all'] });
      expect(jobs.shortNames ?? []).to.deep.equal([]);
    });
  });

  describe('delete', () => {
    it('orphans by default (batch/v1 legacy), and deletes in the background when asked', async () => {
      await t.post(path(), job('orphaning'));
      const res = await t.del(path('orphaning'));
      expect(res.status, res.text).to.be.oneOf([200, 202]);
      // OrphanDependents: the orphan finalizer holds the Job until the garbage collector removes it.
      expect(res.body.metadata.finalizers ?? []).to.include('orphan');
      await t.post(path(), job('background'));
      const bg = await t.del(path('background'), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' });
      expect(bg.status, bg.text).to.equal(200);
      expect((await t.get(path('background'))).status).to.equal(404);
    });
  });
});

describe('--runtime-config=batch/v1=false', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(['--runtime-config=batch/v1=false']); });
  after(async () => { await t?.stop(); });

  it('serves no batch group', async () => {
    expect((await t.get('/apis')).body.groups.map((g: Body) => g.name)).not.to.include('batch');
    expect((await t.get(path())).status).to.equal(404);
  });
});
