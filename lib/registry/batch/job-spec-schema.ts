/**
 * Schema of batch/v1 JobSpec, shared by Job (`spec`) and CronJob (`spec.jobTemplate.spec`):
 * registered under its Go name so OpenAPI writes it once as io.k8s.api.batch.v1.JobSpec, as
 * Kubernetes does. List types follow the Go markers (podFailurePolicy and successPolicy rules
 * atomic, exit-code values a set). Descriptions are Kubernetes' (./descriptions.ts).
 */
import { Schema, atomicList, bool, int32, int64, object, setList, str } from '../../scheme/schema';
import { labelSelector } from '../../scheme/meta-schema';
import { fieldOfType, goType } from '../../scheme/type-names';
import { podTemplateSpecSchema } from '../core/pod-template';
import { doc } from './descriptions';

const enumStr = (type: string, field: string, values: string[]): Schema => ({ ...str(doc(type, field)), enum: values });

const onExitCodes = goType('io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement', object({
  containerName: str(doc('PodFailurePolicyOnExitCodesRequirement', 'containerName')),
  operator: enumStr('PodFailurePolicyOnExitCodesRequirement', 'operator', ['In', 'NotIn']),
  values: setList(int32(), doc('PodFailurePolicyOnExitCodesRequirement', 'values')),
}, { required: ['operator', 'values'], description: doc('PodFailurePolicyOnExitCodesRequirement') }));

const onPodConditionsPattern = goType('io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern', object({
  type: str(doc('PodFailurePolicyOnPodConditionsPattern', 'type')),
  status: str(doc('PodFailurePolicyOnPodConditionsPattern', 'status')),
}, { required: ['type', 'status'], description: doc('PodFailurePolicyOnPodConditionsPattern') }));

const podFailurePolicyRule = goType('io.k8s.api.batch.v1.PodFailurePolicyRule', object({
  action: enumStr('PodFailurePolicyRule', 'action', ['Count', 'FailIndex', 'FailJob', 'Ignore']),
  onExitCodes: fieldOfType(onExitCodes, { description: doc('PodFailurePolicyRule', 'onExitCodes') }),
  onPodConditions: atomicList(onPodConditionsPattern, doc('PodFailurePolicyRule', 'onPodConditions')),
}, { required: ['action'], description: doc('PodFailurePolicyRule') }));

const podFailurePolicy = goType('io.k8s.api.batch.v1.PodFailurePolicy', object({
  rules: atomicList(podFailurePolicyRule, doc('PodFailurePolicy', 'rules')),
}, { required: ['rules'], description: doc('PodFailurePolicy') }));

const successPolicyRule = goType('io.k8s.api.batch.v1.SuccessPolicyRule', object({
  succeededIndexes: str(doc('SuccessPolicyRule', 'succeededIndexes')),
  succeededCount: int32(doc('SuccessPolicyRule', 'succeededCount')),
}, { description: doc('SuccessPolicyRule') }));

const successPolicy = goType('io.k8s.api.batch.v1.SuccessPolicy', object({
  rules: atomicList(successPolicyRule, doc('SuccessPolicy', 'rules')),
}, { required: ['rules'], description: doc('SuccessPolicy') }));

/** batch/v1 JobSpec. */
export const jobSpecSchema: Schema = goType('io.k8s.api.batch.v1.JobSpec', object({
  parallelism: int32(doc('JobSpec', 'parallelism')),
  completions: int32(doc('JobSpec', 'completions')),
  activeDeadlineSeconds: int64(doc('JobSpec', 'activeDeadlineSeconds')),
  podFailurePolicy: fieldOfType(podFailurePolicy, { description: doc('JobSpec', 'podFailurePolicy') }),
  successPolicy: fieldOfType(successPolicy, { description: doc('JobSpec', 'successPolicy') }),
  backoffLimit: int32(doc('JobSpec', 'backoffLimit')),
  backoffLimitPerIndex: int32(doc('JobSpec', 'backoffLimitPerIndex')),
  maxFailedIndexes: int32(doc('JobSpec', 'maxFailedIndexes')),
  selector: fieldOfType(labelSelector, { description: doc('JobSpec', 'selector') }),
  manualSelector: bool(doc('JobSpec', 'manualSelector')),
  template: fieldOfType(podTemplateSpecSchema, { description: doc('JobSpec', 'template') }),
  ttlSecondsAfterFinished: int32(doc('JobSpec', 'ttlSecondsAfterFinished')),
  completionMode: enumStr('JobSpec', 'completionMode', ['Indexed', 'NonIndexed']),
  suspend: bool(doc('JobSpec', 'suspend')),
  podReplacementPolicy: enumStr('JobSpec', 'podReplacementPolicy', ['Failed', 'TerminatingOrFailed']),
  managedBy: str(doc('JobSpec', 'managedBy')),
}, { required: ['template'], description: doc('JobSpec') }));
