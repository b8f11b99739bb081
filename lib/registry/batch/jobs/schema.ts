/**
 * Schema of batch/v1 Job: its spec (the shared JobSpec, ../job-spec-schema.ts) and the status
 * the job controller keeps (conditions merged by type for strategic merge patch, an atomic list
 * for server-side apply, as Kubernetes' markers say). Descriptions are Kubernetes'.
 */
import { Schema, atomicList, int32, object, setList, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { doc } from '../descriptions';
import { jobSpecSchema } from '../job-spec-schema';

const jobCondition = goType('io.k8s.api.batch.v1.JobCondition', object({
  type: str(doc('JobCondition', 'type')),
  status: str(doc('JobCondition', 'status')),
  lastProbeTime: time(doc('JobCondition', 'lastProbeTime')),
  lastTransitionTime: time(doc('JobCondition', 'lastTransitionTime')),
  reason: str(doc('JobCondition', 'reason')),
  message: str(doc('JobCondition', 'message')),
}, { required: ['type', 'status'], description: doc('JobCondition') }));

const uncountedTerminatedPods = goType('io.k8s.api.batch.v1.UncountedTerminatedPods', object({
  succeeded: setList(str(), doc('UncountedTerminatedPods', 'succeeded')),
  failed: setList(str(), doc('UncountedTerminatedPods', 'failed')),
}, { description: doc('UncountedTerminatedPods') }));

export const jobStatusSchema: Schema = goType('io.k8s.api.batch.v1.JobStatus', object({
  conditions: {
    ...atomicList(jobCondition, doc('JobStatus', 'conditions')),
    'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type',
  },
  startTime: time(doc('JobStatus', 'startTime')),
  completionTime: time(doc('JobStatus', 'completionTime')),
  active: int32(doc('JobStatus', 'active')),
  succeeded: int32(doc('JobStatus', 'succeeded')),
  failed: int32(doc('JobStatus', 'failed')),
  terminating: int32(doc('JobStatus', 'terminating')),
  completedIndexes: str(doc('JobStatus', 'completedIndexes')),
  failedIndexes: str(doc('JobStatus', 'failedIndexes')),
  uncountedTerminatedPods: fieldOfType(uncountedTerminatedPods, { description: doc('JobStatus', 'uncountedTerminatedPods') }),
  ready: int32(doc('JobStatus', 'ready')),
}, { description: doc('JobStatus') }));

export const jobSchema: Schema = kindSchema({
  spec: fieldOfType(jobSpecSchema, { description: doc('Job', 'spec') }),
  status: fieldOfType(jobStatusSchema, { description: doc('Job', 'status') }),
}, doc('Job'));
