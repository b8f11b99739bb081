/**
 * SelfSubjectRulesReview (create; what `kubectl auth can-i --list` sends): what may I do in
 * spec.namespace? The rules every mode of the chain can list for the requester (after
 * impersonation): resource rules, non-resource rules, `incomplete` when a mode cannot list its
 * own (Webhook, Node), and the problems met as `evaluationError`. As kube-apiserver, the answer
 * carries only `status` (no spec), and `system:masters` gets only what RBAC binds to it.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { errors } from '../../meta/api-errors';
import { RuleResolver, aggregateMessage } from '../authorizer';
import { PolicyRule } from '../../registry/rbac/types';

interface ResourceRule { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }
interface NonResourceRule { verbs: string[]; nonResourceURLs?: string[] }

const some = (list: string[] | null | undefined): list is string[] => Array.isArray(list) && list.length > 0;

/** A rule with resources is a resource rule, one with URLs a non-resource rule (Kubernetes' RBAC RulesFor). */
export function splitRules(rules: PolicyRule[]): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const rule of rules) {
    const verbs = [...(rule.verbs ?? [])];
    if (some(rule.resources)) {
      const r: ResourceRule = { verbs };
      if (some(rule.apiGroups)) r.apiGroups = [...rule.apiGroups];
      r.resources = [...rule.resources];
      if (some(rule.resourceNames)) r.resourceNames = [...rule.resourceNames];
      resourceRules.push(r);
    }
    if (some(rule.nonResourceURLs)) nonResourceRules.push({ verbs, nonResourceURLs: [...rule.nonResourceURLs] });
  }
  return { resourceRules, nonResourceRules };
}


export function selfSubjectRulesReviewHandler(resolver: RuleResolver) {
  return async (s: CustomScope): Promise<void> => {
    writeOptionsOf(s.ctx, 'create');
    const review = await readBodyAs(s.ctx, s.def, undefined);
    if (!s.user) throw errors.badRequest('no user present on request');
    const namespace = (review.spec as { namespace?: string | null } | null | undefined)?.namespace ?? '';
    if (!namespace) throw errors.badRequest('no namespace on request');
    const found = await resolver.rulesFor(s.user, namespace);
    const status: Record<string, unknown> = { ...splitRules(found.rules), incomplete: found.incomplete };
    if (found.errors.length) status.evaluationError = aggregateMessage(found.errors);
    writeObject(s.ctx, 201, { apiVersion: review.apiVersion, kind: review.kind, metadata: { creationTimestamp: null }, spec: {}, status });
  };
}
