/**
 * Go's `%#v` of the internal flowcontrol specs, as field.Invalid prints them when a mandatory
 * object's spec differs from the fixed value (`Invalid value: flowcontrol.FlowSchemaSpec{...}`).
 * Pointers print as `(*T)(nil)` or, when set, with this project's stand-in address
 * `0xc000000000` (a real address differs per process); typed strings print quoted.
 */
import { goQuote, goStrings } from '../../meta/go-print';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SET = '0xc000000000';
const ptr = (type: string, v: unknown) => `(*flowcontrol.${type})(${isObject(v) ? SET : 'nil'})`;
const int = (v: unknown) => String(typeof v === 'number' ? v : 0);
const str = (v: unknown) => goQuote(typeof v === 'string' ? v : '');
const slice = (type: string, v: unknown, item: (x: Json) => string) =>
  (Array.isArray(v) ? `[]flowcontrol.${type}{${v.map((x) => item(isObject(x) ? x : {})).join(', ')}}` : `[]flowcontrol.${type}(nil)`);

function subject(s: Json): string {
  return `flowcontrol.Subject{Kind:${str(s.kind)}, User:${ptr('UserSubject', s.user)}, Group:${ptr('GroupSubject', s.group)}, `
    + `ServiceAccount:${ptr('ServiceAccountSubject', s.serviceAccount)}}`;
}
function resourceRule(r: Json): string {
  return `flowcontrol.ResourcePolicyRule{Verbs:${goStrings(r.verbs)}, APIGroups:${goStrings(r.apiGroups)}, Resources:${goStrings(r.resources)}, `
    + `ClusterScope:${r.clusterScope === true}, Namespaces:${goStrings(r.namespaces)}}`;
}
function nonResourceRule(r: Json): string {
  return `flowcontrol.NonResourcePolicyRule{Verbs:${goStrings(r.verbs)}, NonResourceURLs:${goStrings(r.nonResourceURLs)}}`;
}
function rules(r: Json): string {
  return `flowcontrol.PolicyRulesWithSubjects{Subjects:${slice('Subject', r.subjects, subject)}, `
    + `ResourceRules:${slice('ResourcePolicyRule', r.resourceRules, resourceRule)}, NonResourceRules:${slice('NonResourcePolicyRule', r.nonResourceRules, nonResourceRule)}}`;
}

export function goFlowSchemaSpec(spec: Json): string {
  const pl = isObject(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration : {};
  return `flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:${str(pl.name)}}, `
    + `MatchingPrecedence:${int(spec.matchingPrecedence)}, DistinguisherMethod:${ptr('FlowDistinguisherMethod', spec.distinguisherMethod)}, `
    + `Rules:${slice('PolicyRulesWithSubjects', spec.rules, rules)}}`;
}

export function goPriorityLevelConfigurationSpec(spec: Json): string {
  return `flowcontrol.PriorityLevelConfigurationSpec{Type:${str(spec.type)}, Limited:${ptr('LimitedPriorityLevelConfiguration', spec.limited)}, `
    + `Exempt:${ptr('ExemptPriorityLevelConfiguration', spec.exempt)}}`;
}
