/**
 * --audit-policy-file: an audit Policy (`audit.<domain>/v1`, JSON or YAML) read and validated as
 * kube-apiserver validates it, so a policy that Kubernetes refuses is refused here too.
 */
import { readFileSync } from 'node:fs';
import { yaml } from '../lazy-packages';
import { AUDIT_LEVELS, AuditLevel } from '../meta/audit-annotations';
import { AUDIT_STAGES, AuditGroupResources, AuditPolicy, AuditPolicyRule, AuditStage } from './types';
import { isDns1123Subdomain } from '../meta/validation';

/** A policy file that cannot be used; the message is one line. */
export class AuditPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditPolicyError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const POLICY_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const RULE_FIELDS = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const GROUP_RESOURCES_FIELDS = new Set(['group', 'resources', 'resourceNames']);

/** Fields the decoder does not know, as `unknown field "rules[0].verb"` (Kubernetes' strict decoding error). */
function unknownFields(o: Obj, known: Set<string>, at: string, unknown: string[]): void {
  for (const k of Object.keys(o)) if (!known.has(k)) unknown.push(`unknown field ${JSON.stringify(at ? `${at}.${k}` : k)}`);
}

/**
 * Reads and validates `file`. `groups` are the accepted API groups (`audit.orch.io` and
 * `audit.k8s.io`). Throws AuditPolicyError worded as kube-apiserver's `loading audit policy file`.
 * Unknown fields do not refuse the file: as kube-apiserver's lenient fallback, they are ignored
 * and reported once through `warn`.
 */
export function readAuditPolicyFile(file: string, groups: string[], warn?: (msg: string) => void): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AuditPolicyError(`loading audit policy file: failed to read file path ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  try {
    return parseAuditPolicy(text, groups, warn);
  } catch (err) {
    throw new AuditPolicyError(`loading audit policy file: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}: from file ${file}`);
  }
}

/** Parses and validates a policy document; throws an Error naming every problem on one line. */
export function parseAuditPolicy(text: string, groups: string[], warn?: (msg: string) => void): AuditPolicy {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new Error('failed decoding: the policy must be an object');
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const [group, version] = apiVersion.split('/');
  if (!groups.includes(group) || version !== 'v1' || doc.kind !== 'Policy') {
    throw new Error(`unknown group version field ${apiVersion || '/'}, Kind=${typeof doc.kind === 'string' ? doc.kind : ''} in policy`);
  }
  const errs: string[] = [];
  const unknown: string[] = [];
  unknownFields(doc, POLICY_FIELDS, '', unknown);
  const policy: AuditPolicy = { rules: [] };
  policy.omitStages = stages(doc.omitStages, 'omitStages', errs);
  if (doc.omitManagedFields !== undefined) policy.omitManagedFields = bool(doc.omitManagedFields, 'omitManagedFields', errs);
  if (doc.rules !== undefined && doc.rules !== null && !Array.isArray(doc.rules)) errs.push('rules: Invalid value: must be a list');
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  rules.forEach((r, i) => {
    const rule = validateRule(r, `rules[${i}]`, errs, unknown);
    if (rule) policy.rules.push(rule);
  });
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  if (unknown.length) warn?.(`Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${unknown.join(', ')}`);
  if (!policy.rules.length) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

function validateRule(r: unknown, at: string, errs: string[], unknown: string[]): AuditPolicyRule | undefined {
  if (!isObj(r)) {
    errs.push(`${at}: Invalid value: must be an object`);
    return undefined;
  }
  unknownFields(r, RULE_FIELDS, at, unknown);
  const rule: AuditPolicyRule = { level: 'None' };
  if (r.level === undefined || r.level === '') errs.push(`${at}.level: Required value`);
  else if (!AUDIT_LEVELS.includes(r.level as AuditLevel)) {
    errs.push(`${at}.level: Unsupported value: ${JSON.stringify(r.level)}: supported values: ${AUDIT_LEVELS.map((l) => `"${l}"`).join(', ')}`);
  } else rule.level = r.level as AuditLevel;
  for (const key of ['users', 'userGroups', 'verbs', 'namespaces'] as const) {
    const list = strings(r[key], `${at}.${key}`, errs);
    if (list) rule[key] = list;
  }
  const urls = strings(r.nonResourceURLs, `${at}.nonResourceURLs`, errs);
  urls?.forEach((u, i) => {
    if (u === '*') return;
    const where = `${at}.nonResourceURLs[${i}]`;
    if (!u.startsWith('/')) errs.push(`${where}: Invalid value: ${JSON.stringify(u)}: non-resource URL rules must begin with a '/' character`);
    if (u.slice(0, -1).includes('*')) errs.push(`${where}: Invalid value: ${JSON.stringify(u)}: non-resource URL wildcards '*' must be the final character of the rule`);
  });
  if (urls) rule.nonResourceURLs = urls;
  if (r.resources !== undefined && r.resources !== null) {
    if (!Array.isArray(r.resources)) errs.push(`${at}.resources: Invalid value: must be a list`);
    else rule.resources = r.resources.map((gr, i) => groupResources(gr, `${at}.resources`, i, errs, unknown));
  }
  const omit = stages(r.omitStages, `${at}.omitStages`, errs);
  if (omit) rule.omitStages = omit;
  if (r.omitManagedFields !== undefined && r.omitManagedFields !== null) rule.omitManagedFields = bool(r.omitManagedFields, `${at}.omitManagedFields`, errs);
  if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length)) {
    errs.push(`${at}.nonResourceURLs: Invalid value: ${goStrings(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  return rule;
}

function groupResources(gr: unknown, at: string, i: number, errs: string[], unknown: string[]): AuditGroupResources {
  if (!isObj(gr)) {
    errs.push(`${at}[${i}]: Invalid value: must be an object`);
    return {};
  }
  unknownFields(gr, GROUP_RESOURCES_FIELDS, `${at}[${i}]`, unknown);
  const out: AuditGroupResources = {};
  if (gr.group !== undefined && gr.group !== null) {
    if (typeof gr.group !== 'string') errs.push(`${at}.group: Invalid value: must be a string`);
    else {
      out.group = gr.group;
      // The core group is "", any group "*"; others are DNS subdomains (not `rbac.authorization.k8s.io/v1`).
      const msgs = gr.group && gr.group !== '*' ? isDns1123Subdomain(gr.group) : [];
      if (msgs.length) errs.push(`${at}.group: Invalid value: ${JSON.stringify(gr.group)}: ${msgs.join(',')}`);
    }
  }
  const resources = strings(gr.resources, `${at}[${i}].resources`, errs);
  if (resources) out.resources = resources;
  const names = strings(gr.resourceNames, `${at}[${i}].resourceNames`, errs);
  if (names) out.resourceNames = names;
  if (names?.length && !resources?.length) {
    errs.push(`${at}.resourceNames: Invalid value: ${goStrings(names)}: using resourceNames requires at least one resource`);
  }
  return out;
}

/** Go's %#v of a []string: how Kubernetes' field errors print a list that is the bad value. */
function goStrings(list: string[]): string {
  return `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;
}

function strings(v: unknown, at: string, errs: string[]): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    errs.push(`${at}: Invalid value: must be a list of strings`);
    return undefined;
  }
  return v as string[];
}

function bool(v: unknown, at: string, errs: string[]): boolean {
  if (typeof v !== 'boolean') errs.push(`${at}: Invalid value: ${JSON.stringify(v)}: must be a boolean`);
  return v === true;
}

function stages(v: unknown, at: string, errs: string[]): AuditStage[] | undefined {
  const list = strings(v, at, errs);
  list?.forEach((s, i) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) errs.push(`${at}[${i}]: Invalid value: ${JSON.stringify(s)}: allowed stages are ${AUDIT_STAGES.join(',')}`);
  });
  return list as AuditStage[] | undefined;
}
