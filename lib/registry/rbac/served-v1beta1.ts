/**
 * The RBAC kinds at rbac.authorization/v1beta1: removed from Kubernetes in 1.22 (deprecated in
 * 1.17), served here only when `--runtime-config=<rbac group>/v1beta1=true` (or emulation of an
 * earlier release) switches them on, with Kubernetes' deprecation warning. v1beta1's types, field
 * numbers and defaults (pkg/apis/rbac/v1beta1/defaults.go: roleRef.apiGroup and the User/Group
 * subjects' apiGroup default to the RBAC group, a ServiceAccount subject's to '') are v1's, so
 * the objects are v1's relabelled (served-version.ts); validation, escalation checks (keyed by
 * group and resource, whatever the version) and the bootstrap policy are the same objects' too.
 */
import { ResourceDef } from '../../scheme/types';
import { servedOverStorage } from '../served-version';

/** The v1beta1 def of an RBAC kind over its v1 objects, off unless switched on. */
export function servedAtV1beta1(v1: ResourceDef): ResourceDef {
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 17], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
  }, 'v1');
}
