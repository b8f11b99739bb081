/**
 * validateRuleWithOperations of Kubernetes' admissionregistration validation: which operations,
 * API groups, versions, resources (with the subresource wildcard forms) and scope a webhook rule
 * names. Paths and messages are Kubernetes' (`webhooks[0].rules[0].operations: Required value`).
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

/** Go's %#v of a string slice of type `type`, as a bad list value is printed. */
export function goSlice(type: string, list: unknown[]): string {
  return `${type}{${list.map((s) => JSON.stringify(String(s))).join(', ')}}`;
}

function invalidList(field: string, type: string, list: unknown[], detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${goSlice(type, list)}: ${detail}` };
}

const strings = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// The wildcard forms of resources ('*', '*/*', 'x/*', '*/x'), each excluding what it covers.
function validateResources(resources: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!resources.length) errs.push(fieldErrors.required(path));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((value, i) => {
    const resSub = String(value ?? '');
    if (resSub === '') {
      errs.push(fieldErrors.required(index(path, i)));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // As Kubernetes: the last plain entry decides.
      plainResource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(fieldErrors.invalid(index(path, i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildcardRes.has(sub)) errs.push(fieldErrors.invalid(index(path, i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errs.push(invalidList(path, '[]string', resources, "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && plainResource) {
    errs.push(invalidList(path, '[]string', resources, "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** The errors of one rule at `path` (`webhooks[i].rules[j]`). */
export function validateRuleWithOperations(rule: unknown, path: string): FieldError[] {
  const r = (typeof rule === 'object' && rule !== null ? rule : {}) as Record<string, unknown>;
  const errs: FieldError[] = [];
  const operations = strings(r.operations);
  const opsPath = child(path, 'operations');
  if (!operations.length) errs.push(fieldErrors.required(opsPath));
  if (operations.length > 1 && operations.includes('*')) {
    errs.push(invalidList(opsPath, '[]admissionregistration.OperationType', operations, "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(String(op))) errs.push(fieldErrors.notSupported(index(opsPath, i), op, OPERATIONS));
  });
  const groups = strings(r.apiGroups);
  if (!groups.length) errs.push(fieldErrors.required(child(path, 'apiGroups')));
  if (groups.length > 1 && groups.includes('*')) {
    errs.push(invalidList(child(path, 'apiGroups'), '[]string', groups, "if '*' is present, must not specify other API groups"));
  }
  const versions = strings(r.apiVersions);
  const versionsPath = child(path, 'apiVersions');
  if (!versions.length) errs.push(fieldErrors.required(versionsPath));
  if (versions.length > 1 && versions.includes('*')) {
    errs.push(invalidList(versionsPath, '[]string', versions, "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => { if (v === '' || v === null) errs.push(fieldErrors.required(index(versionsPath, i))); });
  errs.push(...validateResources(strings(r.resources), child(path, 'resources')));
  if (r.scope !== undefined && r.scope !== null && !SCOPES.includes(String(r.scope))) {
    errs.push(fieldErrors.notSupported(child(path, 'scope'), r.scope, SCOPES));
  }
  return errs;
}
