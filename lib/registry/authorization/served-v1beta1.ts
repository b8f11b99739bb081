/**
 * The access reviews at authorization/v1beta1: removed from Kubernetes in 1.22 (deprecated in
 * 1.19), served here only when `--runtime-config=<authorization group>/v1beta1=true` (or
 * emulation of an earlier release) switches them on, with Kubernetes' deprecation warning. As
 * release 1.21 served them, their shapes are v1's but for SubjectAccessReviewSpec's `group` (v1's
 * `groups`) and resource attributes without the field and label selectors (added in 1.31).
 * Answered by the same handlers (lib/authz/api), at the version they were asked in.
 */
import { Schema, atomicList } from '../../scheme/schema';
import { kindSchema } from '../../scheme/meta-schema';
import { ResourceDef } from '../../scheme/types';
import { decodeProblem } from '../../scheme/decode-check';
import { accessReviewStatus, nonResourceAttributes, resourceAttributes, subjectAccessReviewSpec } from './access-review-schema';

const props = (s: Schema): Record<string, Schema> => s.properties ?? {};

const { fieldSelector: _field, labelSelector: _label, ...attributes } = props(resourceAttributes);
const resourceAttributesV1beta1: Schema = { ...resourceAttributes, properties: attributes };

const { resourceAttributes: _r, nonResourceAttributes: _n, user, groups: _groups, ...rest } = props(subjectAccessReviewSpec);
/** SubjectAccessReviewSpec at v1beta1, in Go's field order: `group` where v1 has `groups`. */
const subjectAccessReviewSpecV1beta1: Schema = {
  ...subjectAccessReviewSpec,
  properties: {
    resourceAttributes: resourceAttributesV1beta1, nonResourceAttributes, user,
    group: atomicList({ type: 'string' }, 'The groups to test.'), ...rest,
  },
};

const selfSpecV1beta1: Schema = {
  type: 'object', properties: { resourceAttributes: resourceAttributesV1beta1, nonResourceAttributes },
  description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.',
};

/** The v1beta1 specs that differ from v1's, by kind (SelfSubjectRulesReview's is v1's). */
const SPECS_V1BETA1: Record<string, Schema> = {
  SubjectAccessReview: subjectAccessReviewSpecV1beta1,
  LocalSubjectAccessReview: subjectAccessReviewSpecV1beta1,
  SelfSubjectAccessReview: selfSpecV1beta1,
};

/** A v1 review's schema with its spec as v1beta1 has it. */
function schemaAtV1beta1(v1: ResourceDef): Schema {
  const spec = SPECS_V1BETA1[v1.kind];
  if (!spec) return v1.schema;
  return kindSchema({ spec, status: accessReviewStatus }, v1.schema.description ?? '');
}

/** The v1beta1 def of an access review, off unless switched on. */
export function servedAtV1beta1(v1: ResourceDef): ResourceDef {
  const schema = schemaAtV1beta1(v1);
  return {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
    schema,
    strategy: { ...v1.strategy, checkDecode: (obj) => decodeProblem(obj, schema, v1.kind) },
  };
}
