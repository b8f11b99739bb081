/**
 * FlowSchema validation as Kubernetes 1.32's pkg/apis/flowcontrol/validation (ValidateFlowSchema
 * and its parts): field paths and messages as kube-apiserver answers them. The mandatory
 * FlowSchemas (`exempt`, `catch-all`) must keep the bootstrap spec exactly.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { goQuote, goStrings, invalidGo } from '../../../meta/go-print';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';
import { flowcontrolSpecEqual } from '../spec-equal';
import { goFlowSchemaSpec } from '../go-values';
import { MANDATORY_FLOW_SCHEMAS } from '../bootstrap-configuration';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
/** supportedVerbs, as sets.List() sorts them. */
export const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

/** field.NotSupported of a []string: Go prints the slice with %#v. */
function notSupportedGo(field: string, printed: string, supported: string[]): FieldError {
  return {
    type: 'FieldValueNotSupported', field,
    message: `Unsupported value: ${printed}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

function validateSubject(subject: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const forbidUser = () => { if (subject.user != null) errs.push(fieldErrors.forbidden(child(path, 'user'), "user is forbidden when subject kind is not 'User'")); };
  const forbidGroup = () => { if (subject.group != null) errs.push(fieldErrors.forbidden(child(path, 'group'), "group is forbidden when subject kind is not 'Group'")); };
  const forbidSa = () => { if (subject.serviceAccount != null) errs.push(fieldErrors.forbidden(child(path, 'serviceAccount'), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'")); };
  switch (subject.kind) {
    case 'ServiceAccount': {
      const p = child(path, 'serviceAccount');
      const sa = subject.serviceAccount;
      if (!isObject(sa)) errs.push(fieldErrors.required(p, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = text(sa.name);
        if (name === '') errs.push(fieldErrors.required(child(p, 'name')));
        else if (name !== '*') for (const m of isDns1123Subdomain(name)) errs.push(fieldErrors.invalid(child(p, 'name'), name, m));
        const ns = text(sa.namespace);
        if (ns === '') errs.push(fieldErrors.required(child(p, 'namespace'), 'must specify namespace for service account'));
        else for (const m of isDns1123Label(ns)) errs.push(fieldErrors.invalid(child(p, 'namespace'), ns, m));
      }
      forbidUser(); forbidGroup();
      break;
    }
    case 'User': {
      const p = child(path, 'user');
      if (!isObject(subject.user)) errs.push(fieldErrors.required(p, "user is required when subject kind is 'User'"));
      else if (text(subject.user.name) === '') errs.push(fieldErrors.required(child(p, 'name')));
      forbidSa(); forbidGroup();
      break;
    }
    case 'Group': {
      const p = child(path, 'group');
      if (!isObject(subject.group)) errs.push(fieldErrors.required(p, "group is required when subject kind is 'Group'"));
      else if (text(subject.group.name) === '') errs.push(fieldErrors.required(child(p, 'name')));
      forbidSa(); forbidUser();
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(child(path, 'kind'), text(subject.kind), SUBJECT_KINDS));
  }
  return errs;
}

function validateVerbs(verbs: string[], path: string): FieldError[] {
  const p = child(path, 'verbs');
  if (verbs.length === 0) return [fieldErrors.required(p, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [invalidGo(p, goStrings(verbs), "if '*' is present, must not specify other verbs")] : [];
  if (!verbs.every((v) => SUPPORTED_VERBS.includes(v))) return [notSupportedGo(p, goStrings(verbs), SUPPORTED_VERBS)];
  return [];
}

/** ValidateNonResourceURLPath. */
export function validateNonResourceURLPath(url: string, path: string): FieldError | undefined {
  if (url === '') return fieldErrors.invalid(path, url, 'must not be empty');
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return fieldErrors.invalid(path, url, 'must start with slash');
  if (url.includes(' ')) return fieldErrors.invalid(path, url, 'must not contain white-space');
  if (url.includes('//')) return fieldErrors.invalid(path, url, 'must not contain double slash');
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && url.slice(-2) !== '/*')) return fieldErrors.invalid(path, url, 'wildcard can only do suffix matching');
  return undefined;
}

function validateNonResourceRule(rule: Json, path: string): FieldError[] {
  const errs = validateVerbs(strings(rule.verbs), path);
  const urls = strings(rule.nonResourceURLs);
  const p = child(path, 'nonResourceURLs');
  if (urls.length === 0) errs.push(fieldErrors.required(p, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalidGo(p, goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => { const e = validateNonResourceURLPath(u, index(p, i)); if (e) errs.push(e); });
  }
  return errs;
}

function validateResourceRule(rule: Json, path: string): FieldError[] {
  const errs = validateVerbs(strings(rule.verbs), path);
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalidGo(child(path, 'apiGroups'), goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = strings(rule.resources);
  if (resources.length === 0) errs.push(fieldErrors.required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalidGo(child(path, 'resources'), goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = strings(rule.namespaces);
  const p = child(path, 'namespaces');
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(fieldErrors.required(p, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalidGo(p, goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => { for (const m of isDns1123Label(ns)) errs.push(fieldErrors.invalid(index(p, i), ns, NS_ERR_INTRO + m)); });
  }
  return errs;
}

function validateRule(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = Array.isArray(rule.subjects) ? rule.subjects : [];
  if (subjects.length > 0) subjects.forEach((s, i) => errs.push(...validateSubject(isObject(s) ? s : {}, index(child(path, 'subjects'), i))));
  else errs.push(fieldErrors.required(child(path, 'subjects'), 'subjects must contain at least one value'));
  const resourceRules = Array.isArray(rule.resourceRules) ? rule.resourceRules : [];
  const nonResourceRules = Array.isArray(rule.nonResourceRules) ? rule.nonResourceRules : [];
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errs.push(fieldErrors.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(isObject(r) ? r : {}, index(child(path, 'resourceRules'), i))));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(isObject(r) ? r : {}, index(child(path, 'nonResourceRules'), i))));
  return errs;
}

/** ValidateFlowSchemaSpec. */
export function validateFlowSchemaSpec(name: string, spec: Json, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const mp = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  const mpPath = child(path, 'matchingPrecedence');
  if (mp <= 0) errs.push(fieldErrors.invalid(mpPath, mp, 'must be a positive value'));
  if (mp > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE) errs.push(fieldErrors.invalid(mpPath, mp, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`));
  if (mp === 1 && name !== 'exempt') errs.push(fieldErrors.invalid(mpPath, mp, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = spec.distinguisherMethod;
  if (isObject(dm) && !DISTINGUISHER_METHODS.includes(text(dm.type))) {
    // Go dereferences the *FlowDistinguisherMethod and prints it with %#v.
    errs.push(notSupportedGo(child(child(path, 'distinguisherMethod'), 'type'), `flowcontrol.FlowDistinguisherMethod{Type:${goQuote(text(dm.type))}}`, DISTINGUISHER_METHODS));
  }
  const plName = isObject(spec.priorityLevelConfiguration) ? text(spec.priorityLevelConfiguration.name) : '';
  const plPath = child(child(path, 'priorityLevelConfiguration'), 'name');
  if (plName.length > 0) for (const m of isDns1123Subdomain(plName)) errs.push(fieldErrors.invalid(plPath, plName, m));
  else errs.push(fieldErrors.required(plPath, 'must reference a priority level'));
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((r, i) => errs.push(...validateRule(isObject(r) ? r : {}, index(child(path, 'rules'), i))));
  return errs;
}

/** ValidateFlowSchemaStatus: condition types present and unique. */
export function validateFlowSchemaStatus(status: unknown, path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = isObject(status) && Array.isArray(status.conditions) ? status.conditions : [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = isObject(c) ? text(c.type) : '';
    const p = index(child(path, 'conditions'), i);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(p, 'type'), type));
    seen.add(type);
    if (type === '') errs.push(fieldErrors.required(child(p, 'type'), 'must not be empty'));
  });
  return errs;
}

/** ValidateFlowSchema less metadata (the store checks it): spec, the mandatory spec, status. */
export function validateFlowSchema(name: string, spec: Json, status: unknown): FieldError[] {
  const errs = validateFlowSchemaSpec(name, spec);
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((fs) => fs.metadata.name === name);
  if (mandatory && !flowcontrolSpecEqual(spec, mandatory.spec)) {
    errs.push(invalidGo('spec', goFlowSchemaSpec(spec), `spec of '${name}' must equal the fixed value`));
  }
  errs.push(...validateFlowSchemaStatus(status));
  return errs;
}
