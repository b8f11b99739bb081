/**
 * API approval of CRDs in protected groups (Kubernetes' `k8s.io` and `kubernetes.io`, and this
 * project's `orch.io`): such a CRD needs the approval annotation, a URL of the approving review
 * or a reason starting with "unapproved". An update that keeps the approval state is never
 * refused (clients that only change the spec keep working).
 */
import { Naming } from '../../../naming';
import { ApiObject } from '../../../scheme/types';
import { FieldError, fieldErrors } from '../../../meta/field-errors';

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

/** Whether the group is the domain itself or one of its subdomains, for a protected domain. */
export function isProtectedGroup(group: string, naming: Naming): boolean {
  return naming.protectedGroupDomains.some((d) => group === d || group.endsWith(`.${d}`));
}

/** url.ParseRequestURI's acceptance, enough to tell an absolute URL with a host. */
function isUrlWithHost(value: string): boolean {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]+/.test(value) || /[\s\x00-\x1f\x7f]/.test(value)) return false;
  try {
    return !!new URL(value).host;
  } catch {
    return false;
  }
}

function approvalState(annotations: Record<string, string> | undefined, key: string): ApprovalState {
  const value = annotations?.[key] ?? '';
  if (!value) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  return isUrlWithHost(value) ? 'approved' : 'invalid';
}

/** validateAPIApproval for a create (`old` absent) or an update. */
export function validateApiApproval(obj: ApiObject, old: ApiObject | undefined, naming: Naming): FieldError[] {
  const spec = (obj.spec ?? {}) as { group?: unknown };
  if (typeof spec.group !== 'string' || !isProtectedGroup(spec.group, naming)) return [];
  const key = naming.apiApprovedAnnotation;
  const state = approvalState(obj.metadata?.annotations, key);
  if (old && approvalState(old.metadata?.annotations, key) === state) return [];
  const path = `metadata.annotations[${key}]`;
  const pr = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (state === 'missing') return [fieldErrors.required(path, `protected groups must have approval annotation ${JSON.stringify(key)}, ${pr}`)];
  if (state === 'invalid') {
    return [fieldErrors.invalid(path, obj.metadata?.annotations?.[key] ?? '',
      `protected groups must have approval annotation ${JSON.stringify(key)} with either a URL or a reason starting with "unapproved", ${pr}`)];
  }
  return [];
}
