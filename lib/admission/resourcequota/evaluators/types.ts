/**
 * What the ResourceQuota admission plugin and the quota controller ask of the evaluator of one
 * resource (Kubernetes' quota.Evaluator): which of a quota's resource names it charges, whether
 * an object matches a quota's scopes, the object's usage, and the constraints an object must meet
 * when a quota restricts some resources (pods must state cpu and memory requests and limits).
 */
import { ApiObject } from '../../../scheme/types';
import { ResourceList } from '../resource-list';

/** A scope of a quota as a selector requirement (scopes are Exists requirements). */
export interface ScopeRequirement { scopeName: string; operator: string; values?: string[] }

export interface Evaluator {
  /** `group/resource` (core: `/pods`). */
  readonly groupResource: string;
  /** Whether the operation is charged (pods and object counts: create; services and claims: update too). */
  handles(operation: 'CREATE' | 'UPDATE'): boolean;
  /** The names among `names` this evaluator charges. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object matches one scope requirement. */
  matchesScope(req: ScopeRequirement, obj: ApiObject): boolean;
  /** The object's usage. `now` decides whether a pod past its deletion grace period still counts. */
  usage(obj: ApiObject, now?: Date): ResourceList;
  /** A "must specify ..." sentence when the object does not state what `required` needs, else undefined. */
  constraints?(required: readonly string[], obj: ApiObject): string | undefined;
  /** Whether the evaluator checks scopes at all (others match only quotas without scopes). */
  readonly scoped?: boolean;
}

/** generic.MatchesNoScopeFunc: object counts and the like match no scope. */
export const matchesNoScope = (): boolean => false;
