/**
 * Schema of flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration: a priority level that is
 * either Exempt (never queued) or Limited (a share of the server's concurrency, what it may lend
 * and borrow, and whether excess requests queue or are rejected); and its status conditions.
 * Go type names as Kubernetes' OpenAPI has them.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, int32, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const T = 'io.k8s.api.flowcontrol.v1';

const queuingConfiguration = goType(`${T}.QueuingConfiguration`, object({
  queues: int32('`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.'),
  handSize: int32('`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request\'s flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.'),
  queueLengthLimit: int32('`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.'),
}, { description: 'QueuingConfiguration holds the configuration parameters for queuing' }));

const limitResponse = goType(`${T}.LimitResponse`, object({
  type: str('`type` is "Queue" or "Reject". "Queue" means that requests that can not be executed upon arrival are held in a queue until they can be executed or a queuing limit is reached. "Reject" means that requests that can not be executed upon arrival are rejected. Required.'),
  queuing: fieldOfType(queuingConfiguration, { description: '`queuing` holds the configuration parameters for queuing. This field may be non-empty only if `type` is `"Queue"`.' }),
}, { required: ['type'], description: 'LimitResponse defines how to handle requests that can not be executed right now.' }));

const limitedPriorityLevelConfiguration = goType(`${T}.LimitedPriorityLevelConfiguration`, object({
  nominalConcurrencyShares: int32('`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)'),
  limitResponse: fieldOfType(limitResponse, { description: '`limitResponse` indicates what to do with requests that can not be executed right now' }),
  lendablePercent: int32('`lendablePercent` prescribes the fraction of the level\'s NominalCL that can be borrowed by other priority levels. The value of this field must be between 0 and 100, inclusive, and it defaults to 0. The number of seats that other levels can borrow from this level, known as this level\'s LendableConcurrencyLimit (LendableCL), is defined as follows.\n\nLendableCL(i) = round( NominalCL(i) * lendablePercent(i)/100.0 )'),
  borrowingLimitPercent: int32('`borrowingLimitPercent`, if present, configures a limit on how many seats this priority level can borrow from other priority levels. The limit is known as this level\'s BorrowingConcurrencyLimit (BorrowingCL) and is a limit on the total number of seats that this level may borrow at any one time. This field holds the ratio of that limit to the level\'s nominal concurrency limit. When this field is non-nil, it must hold a non-negative integer and the limit is calculated as follows.\n\nBorrowingCL(i) = round( NominalCL(i) * borrowingLimitPercent(i)/100.0 )\n\nThe value of this field can be more than 100, implying that this priority level can borrow a number of seats that is greater than its own nominal concurrency limit (NominalCL). When this field is left `nil`, the limit is effectively infinite.'),
}, { description: 'LimitedPriorityLevelConfiguration specifies how to handle requests that are subject to limits. It addresses two issues:\n  - How are requests for this priority level limited?\n  - What should be done with requests that exceed the limit?' }));

const exemptPriorityLevelConfiguration = goType(`${T}.ExemptPriorityLevelConfiguration`, object({
  nominalConcurrencyShares: int32('`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats nominally reserved for this priority level. This DOES NOT limit the dispatching from this priority level but affects the other priority levels through the borrowing mechanism. The server\'s concurrency limit (ServerCL) is divided among all the priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level. This field has a default value of zero.'),
  lendablePercent: int32('`lendablePercent` prescribes the fraction of the level\'s NominalCL that can be borrowed by other priority levels.  This value of this field must be between 0 and 100, inclusive, and it defaults to 0. The number of seats that other levels can borrow from this level, known as this level\'s LendableConcurrencyLimit (LendableCL), is defined as follows.\n\nLendableCL(i) = round( NominalCL(i) * lendablePercent(i)/100.0 )'),
}, { description: 'ExemptPriorityLevelConfiguration describes the configurable aspects of the handling of exempt requests. In the mandatory exempt configuration object the values in the fields here can be modified by authorized users, unlike the rest of the `spec`.' }));

export const priorityLevelConfigurationSpec = goType(`${T}.PriorityLevelConfigurationSpec`, object({
  type: str('`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.'),
  limited: fieldOfType(limitedPriorityLevelConfiguration, { description: '`limited` specifies how requests are handled for a Limited priority level. This field must be non-empty if and only if `type` is `"Limited"`.' }),
  exempt: fieldOfType(exemptPriorityLevelConfiguration, { description: '`exempt` specifies how requests are handled for an exempt priority level. This field MUST be empty if `type` is `"Limited"`. This field MAY be non-empty if `type` is `"Exempt"`. If empty and `type` is `"Exempt"` then the default values for `ExemptPriorityLevelConfiguration` apply.' }),
}, { required: ['type'], description: 'PriorityLevelConfigurationSpec specifies the configuration of a priority level.' }));

const priorityLevelConfigurationCondition = goType(`${T}.PriorityLevelConfigurationCondition`, object({
  type: str('`type` is the type of the condition. Required.'),
  status: str('`status` is the status of the condition. Can be True, False, Unknown. Required.'),
  lastTransitionTime: time('`lastTransitionTime` is the last time the condition transitioned from one status to another.'),
  reason: str('`reason` is a unique, one-word, CamelCase reason for the condition\'s last transition.'),
  message: str('`message` is a human-readable message indicating details about last transition.'),
}, { description: 'PriorityLevelConfigurationCondition defines the condition of priority level.' }));

export const priorityLevelConfigurationStatus = goType(`${T}.PriorityLevelConfigurationStatus`, object({
  conditions: {
    ...mapList(priorityLevelConfigurationCondition, ['type'], '`conditions` is the current state of "request-priority".'),
    'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type',
  },
}, { description: 'PriorityLevelConfigurationStatus represents the current state of a "request-priority".' }));

export const priorityLevelConfigurationSchema: Schema = kindSchema({
  spec: fieldOfType(priorityLevelConfigurationSpec, { description: '`spec` is the specification of the desired behavior of a "request-priority". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(priorityLevelConfigurationStatus, { description: '`status` is the current status of a "request-priority". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'PriorityLevelConfiguration represents the configuration of a priority level.');
