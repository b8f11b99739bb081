/**
 * Which level a request is audited at: the first rule of the policy that matches it (users,
 * groups, verb, resources or non-resource URLs, namespaces), else None, as Kubernetes' checker.
 */
import type { AuditLevel } from '../meta/audit-annotations';
import type { AuditPolicy, AuditPolicyRule, AuditStage } from './types';

/** What the policy checks of a request (the requestor, before impersonation, as Kubernetes). */
export interface AuditAttributes {
  user?: { name: string; groups: string[] };
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  /** "" for cluster-scoped requests, which `namespaces: [""]` selects. */
  namespace: string;
  name: string;
}

/** A request's audit configuration. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

/** Evaluates a validated policy; rules are prepared once (the policy's omitStages joined to each). */
export class AuditPolicyEvaluator {
  private readonly rules: { rule: AuditPolicyRule; config: RequestAuditConfig }[];
  private readonly fallback: RequestAuditConfig;

  constructor(policy: AuditPolicy) {
    const policyStages = policy.omitStages ?? [];
    this.rules = policy.rules.map((rule) => ({
      rule,
      config: {
        level: rule.level,
        omitStages: new Set([...policyStages, ...(rule.omitStages ?? [])]),
        omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
      },
    }));
    this.fallback = { level: 'None', omitStages: new Set(policyStages), omitManagedFields: policy.omitManagedFields ?? false };
  }

  /** The first matching rule's configuration, or level None. */
  evaluate(attrs: AuditAttributes): RequestAuditConfig {
    for (const { rule, config } of this.rules) if (ruleMatches(rule, attrs)) return config;
    return this.fallback;
  }
}

function ruleMatches(r: AuditPolicyRule, a: AuditAttributes): boolean {
  if (r.users?.length && (!a.user || !r.users.includes(a.user.name))) return false;
  if (r.userGroups?.length && (!a.user || !a.user.groups.some((g) => r.userGroups!.includes(g)))) return false;
  if (r.verbs?.length && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return resourceMatches(r, a);
  if (r.nonResourceURLs?.length) return !a.isResourceRequest && r.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: AuditPolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(a.namespace)) return false;
  if (!r.resources?.length) return true;
  const sub = a.subresource ?? '';
  const combined = sub ? `${a.resource}/${sub}` : a.resource;
  for (const gr of r.resources) {
    const group = gr.group ?? '';
    if (group !== a.apiGroup && group !== '*') continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      // `*/scale`: that subresource of any resource; `pods/*`: the resource and all its subresources.
      if (sub && res.startsWith('*/') && res.slice(2) === sub) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}
