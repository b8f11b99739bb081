/**
 * Protobuf of batch/v1 Job and CronJob: every field their schemas serve survives JSON ->
 * protobuf -> JSON (objects generated from the schemas, so a served field proto/ lacks fails),
 * pointer fields set to their zero values come back (suspend false, backoffLimit 0), and a Job's
 * empty status is kept as {} (Go writes the struct), and the bytes of a JobStatus, a
 * PodFailurePolicy and a CronJobStatus equal protoc --encode vectors of what Go writes.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { Schema } from '../../../../lib/scheme/schema';
import { jobSchema } from '../../../../lib/registry/batch/jobs/schema';
import { cronJobSchema } from '../../../../lib/registry/batch/cron-jobs/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const T0 = '2024-01-01T00:00:00Z';
type Obj = Record<string, any>;
const metadata = { name: 'work', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0, generation: 2 };

/** A value for `schema` with every property set (ObjectMeta replaced by a small fixed one). */
function everyField(schema: Schema, path: string): unknown {
  const s = schema as Obj;
  if (s.format === 'quantity') return '1536Mi';
  if (s.format === 'date-time') return T0;
  if (s['x-kubernetes-int-or-string']) return 3;
  switch (s.type) {
    case 'string': return `${path.split('.').pop()}-x`;
    case 'integer': return 3;
    case 'boolean': return true;
    case 'array': return [everyField(s.items, `${path}[]`)];
    default: {
      if (s.properties) {
        const out: Obj = {};
        for (const [k, v] of Object.entries(s.properties as Record<string, Schema>)) {
          out[k] = k === 'metadata' ? { name: 'meta', labels: { app: 'demo' } } : everyField(v, `${path}.${k}`);
        }
        return out;
      }
      if (s.additionalProperties) return { key: everyField(s.additionalProperties, `${path}{}`) };
      if (s['x-kubernetes-preserve-unknown-fields']) return { any: 'thing' };
      throw new Error(`${path}: no value for schema ${JSON.stringify(s)}`);
    }
  }
}

const full = (kind: string, schema: Schema): ApiObject => ({ ...(everyField(schema, kind) as Obj), apiVersion: 'batch/v1', kind, metadata });

/** Paths whose values differ, to name the fields protobuf dropped. */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(root)'];
  }
  const keys = new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)]);
  return [...keys].flatMap((k) => differences((a as Obj)[k], (b as Obj)[k], `${path}.${k}`));
}

describe('batch/v1 protobuf', () => {
  it('has Job, CronJob and their lists', () => {
    for (const kind of ['Job', 'JobList', 'CronJob', 'CronJobList']) expect(hasProtobuf('batch/v1', kind), kind).to.equal(true);
  });

  for (const [kind, schema] of [['Job', jobSchema], ['CronJob', cronJobSchema]] as const) {
    it(`round trips every field the ${kind} schema serves`, () => {
      const obj = full(kind, schema);
      const back = decodeProtobuf(encodeProtobuf(obj));
      expect(differences(obj, back), 'fields lost or changed').to.deep.equal([]);
    });
  }

  it('keeps pointer fields set to zero values and value fields without omitempty', () => {
    const job: ApiObject = {
      apiVersion: 'batch/v1', kind: 'Job', metadata,
      spec: {
        parallelism: 0, completions: 0, backoffLimit: 0, suspend: false, manualSelector: false, ttlSecondsAfterFinished: 0,
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] } },
        podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1, 2] } }] },
      },
      status: { terminating: 0, ready: 0, failedIndexes: '' },
    };
    expect(decodeProtobuf(encodeProtobuf(job))).to.deep.equal(job);
    const fresh = { ...job, status: {} };
    expect(decodeProtobuf(encodeProtobuf(fresh))).to.deep.equal(fresh);
    const cronJob: ApiObject = {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata,
      spec: { schedule: '@hourly', suspend: false, startingDeadlineSeconds: 0, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0, jobTemplate: { spec: { parallelism: 0, template: { spec: { containers: [{ name: 'c', image: 'i', resources: {} }] } } } } },
      status: {},
    };
    expect(decodeProtobuf(encodeProtobuf(cronJob))).to.deep.equal(cronJob);
  });

  it('writes the bytes Go writes for a JobStatus and a PodFailurePolicy (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const cases: Array<[string, Obj, string]> = [
      ['k8s.io.api.batch.v1.JobStatus', {
        conditions: [{ type: 'Complete', status: 'True', lastProbeTime: T0, lastTransitionTime: T0, reason: 'Done', message: 'ok' }],
        startTime: T0, active: 1, terminating: 0, ready: 0, uncountedTerminatedPods: { succeeded: ['u1'] },
      }, `conditions { type: "Complete" status: "True" lastProbeTime { seconds: 1704067200 nanos: 0 } lastTransitionTime { seconds: 1704067200 nanos: 0 } reason: "Done" message: "ok" }
        startTime { seconds: 1704067200 nanos: 0 } active: 1 succeeded: 0 failed: 0 completedIndexes: "" uncountedTerminatedPods { succeeded: "u1" } ready: 0 terminating: 0`],
      ['k8s.io.api.batch.v1.PodFailurePolicy', {
        rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [1, 42] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
      }, `rules { action: "FailJob" onExitCodes { containerName: "main" operator: "In" values: 1 values: 42 } }
        rules { action: "Ignore" onPodConditions { type: "DisruptionTarget" status: "True" } }`],
      ['k8s.io.api.batch.v1.CronJobStatus', { active: [{ kind: 'Job', name: 'j', namespace: 'default', uid: 'u' }], lastScheduleTime: T0 },
        `active { kind: "Job" namespace: "default" name: "j" uid: "u" apiVersion: "" resourceVersion: "" fieldPath: "" } lastScheduleTime { seconds: 1704067200 nanos: 0 }`],
    ];
    for (const [message, json, text] of cases) {
      const vector = protocEncode(message, text);
      expect(encodeMessage(message, json).toString('hex'), message).to.equal(vector.toString('hex'));
      expect(decodeMessage(message, vector), message).to.deep.equal(json);
    }
  });
});
