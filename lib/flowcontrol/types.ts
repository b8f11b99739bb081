/**
 * The parts of flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration that the
 * dispatcher reads, in their JSON shape (as stored and served). The kinds themselves (schemas,
 * validation, defaults) live in lib/registry/flowcontrol; here only what decides a request's fate.
 */

export interface ObjectMetaLike { name: string; uid?: string }

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount' | string;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchema {
  metadata: ObjectMetaLike;
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence?: number;
    distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' | string };
    rules?: PolicyRulesWithSubjects[];
  };
}

export interface QueuingConfiguration { queues?: number; handSize?: number; queueLengthLimit?: number }

export interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
  limitResponse?: { type: 'Queue' | 'Reject' | string; queuing?: QueuingConfiguration };
}

export interface PriorityLevelConfiguration {
  metadata: ObjectMetaLike;
  spec: {
    type: 'Exempt' | 'Limited' | string;
    limited?: LimitedPriorityLevelConfiguration;
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  };
}

/** The whole configuration the dispatcher works from. */
export interface FlowControlConfiguration {
  flowSchemas: readonly FlowSchema[];
  priorityLevels: readonly PriorityLevelConfiguration[];
}

/** What classification needs of a request (kube's RequestDigest). */
export interface RequestDigest {
  user: { name: string; groups: readonly string[] };
  isResourceRequest: boolean;
  verb: string;
  /** Resource requests. */
  apiGroup: string;
  /**
   * The same group in Kubernetes' spelling where this server's flavor names it otherwise
   * (`coordination.orch.io` -> `coordination.k8s.io`): the bootstrap objects name kube's groups.
   */
  apiGroupAlias?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  /** Non-resource requests. */
  path: string;
}
