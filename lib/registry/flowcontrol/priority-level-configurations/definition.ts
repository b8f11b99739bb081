/**
 * PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1, cluster-scoped): an API priority
 * and fairness priority level, Exempt or Limited. Defaults as pkg/apis/flowcontrol/v1/defaults.go
 * (a Limited level's nominalConcurrencyShares 30 when unset, an explicit 0 kept; lendablePercent 0;
 * queuing 64 queues, hand size 8, queue length limit 50; an exempt section's fields 0); validation
 * as 1.32's, the mandatory `exempt` and `catch-all` held to the bootstrap spec (of `exempt`, only
 * `spec.exempt` may change). Status only through `/status`; spec changes bump generation.
 * kubectl's NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE table
 * (printPriorityLevelConfiguration).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { statusSubresource } from '../../status-subresource';
import { flowcontrolSpecEqual } from '../spec-equal';
import { priorityLevelConfigurationSchema } from './schema';
import { validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatus } from './validation';

const KIND = 'PriorityLevelConfiguration';
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});

/** SetObjectDefaults_PriorityLevelConfiguration of flowcontrol v1. */
export function defaultPriorityLevelConfiguration(obj: ApiObject): void {
  const spec = isObject(obj.spec) ? obj.spec : (obj.spec = {});
  if (isObject(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  const limited = spec.limited;
  if (isObject(limited)) {
    limited.nominalConcurrencyShares ??= 30;
    limited.lendablePercent ??= 0;
    const lr = isObject(limited.limitResponse) ? limited.limitResponse : (limited.limitResponse = {});
    if (isObject(lr.queuing)) {
      if (!lr.queuing.handSize) lr.queuing.handSize = 8;
      if (!lr.queuing.queues) lr.queuing.queues = 64;
      if (!lr.queuing.queueLengthLimit) lr.queuing.queueLengthLimit = 50;
    }
  }
}

const priorityLevelTable: TableColumns = {
  columns: [
    nameColumn,
    column('Type', 'string', '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.'),
    column('NominalConcurrencyShares', 'string', '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level.'),
    column('Queues', 'string', '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.'),
    column('HandSize', 'string', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  This field has a default value of 8.'),
    column('QueueLengthLimit', 'string', '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    let ncs: unknown = '<none>';
    let queues: unknown = '<none>';
    let handSize: unknown = '<none>';
    let queueLengthLimit: unknown = '<none>';
    if (isObject(spec.limited)) {
      ncs = spec.limited.nominalConcurrencyShares ?? 0;
      const lr = spec.limited.limitResponse;
      if (isObject(lr) && isObject(lr.queuing)) {
        queues = lr.queuing.queues ?? 0; handSize = lr.queuing.handSize ?? 0; queueLengthLimit = lr.queuing.queueLengthLimit ?? 0;
      }
    }
    return [obj.metadata?.name ?? '', spec.type ?? '', ncs, queues, handSize, queueLengthLimit,
      translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

const validate = (obj: ApiObject) =>
  validatePriorityLevelConfiguration(obj.metadata?.name ?? '', obj.metadata?.annotations, specOf(obj), obj.status);

export function priorityLevelConfigurationResource(group: string): ResourceDef {
  return {
    group, version: 'v1', kind: KIND, listKind: 'PriorityLevelConfigurationList',
    resource: 'prioritylevelconfigurations', singular: 'prioritylevelconfiguration', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    // ValidatePriorityLevelConfigurationStatusUpdate: a /status write is checked for its status alone.
    subresources: [{ ...statusSubresource(KIND), validateUpdate: (obj) => validatePriorityLevelConfigurationStatus(obj.status) }],
    deleteReturnsStatus: true,
    nameValidation: 'dns-subdomain',
    schema: priorityLevelConfigurationSchema,
    table: priorityLevelTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, priorityLevelConfigurationSchema, KIND),
      default: defaultPriorityLevelConfiguration,
      prepareForCreate: (obj) => { defaultPriorityLevelConfiguration(obj); obj.status = {}; },
      prepareForUpdate: (obj, old) => { defaultPriorityLevelConfiguration(obj); obj.status = old.status ?? {}; },
      specChanged: (obj, old) => !flowcontrolSpecEqual(obj.spec ?? {}, old.spec ?? {}),
      validate,
      validateUpdate: validate,
    },
  };
}
