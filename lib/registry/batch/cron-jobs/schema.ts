/**
 * Schema of batch/v1 CronJob: the schedule, its time zone and policies, the jobTemplate (a
 * JobTemplateSpec holding the shared JobSpec) and the status the cronjob controller keeps
 * (active Jobs, an atomic list of ObjectReferences). Descriptions are Kubernetes'.
 */
import { Schema, atomicList, bool, int32, int64, object, str, time } from '../../../scheme/schema';
import { kindSchema, objectMeta } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { objectReference } from '../../core/object-reference-schema';
import { doc } from '../descriptions';
import { jobSpecSchema } from '../job-spec-schema';

const jobTemplateSpec = goType('io.k8s.api.batch.v1.JobTemplateSpec', object({
  metadata: objectMeta,
  spec: fieldOfType(jobSpecSchema, { description: doc('JobTemplateSpec', 'spec') }),
}, { description: doc('JobTemplateSpec') }));

export const cronJobSpecSchema: Schema = goType('io.k8s.api.batch.v1.CronJobSpec', object({
  schedule: str(doc('CronJobSpec', 'schedule')),
  timeZone: str(doc('CronJobSpec', 'timeZone')),
  startingDeadlineSeconds: int64(doc('CronJobSpec', 'startingDeadlineSeconds')),
  concurrencyPolicy: { ...str(doc('CronJobSpec', 'concurrencyPolicy')), enum: ['Allow', 'Forbid', 'Replace'] },
  suspend: bool(doc('CronJobSpec', 'suspend')),
  jobTemplate: fieldOfType(jobTemplateSpec, { description: doc('CronJobSpec', 'jobTemplate') }),
  successfulJobsHistoryLimit: int32(doc('CronJobSpec', 'successfulJobsHistoryLimit')),
  failedJobsHistoryLimit: int32(doc('CronJobSpec', 'failedJobsHistoryLimit')),
}, { required: ['schedule', 'jobTemplate'], description: doc('CronJobSpec') }));

export const cronJobStatusSchema: Schema = goType('io.k8s.api.batch.v1.CronJobStatus', object({
  active: atomicList(objectReference, doc('CronJobStatus', 'active')),
  lastScheduleTime: time(doc('CronJobStatus', 'lastScheduleTime')),
  lastSuccessfulTime: time(doc('CronJobStatus', 'lastSuccessfulTime')),
}, { description: doc('CronJobStatus') }));

export const cronJobSchema: Schema = kindSchema({
  spec: fieldOfType(cronJobSpecSchema, { description: doc('CronJob', 'spec') }),
  status: fieldOfType(cronJobStatusSchema, { description: doc('CronJob', 'status') }),
}, doc('CronJob'));
