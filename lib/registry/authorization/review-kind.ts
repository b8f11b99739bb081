/**
 * The authorization group's kinds (`authorization.<domain>/v1`) as one builder makes them: four
 * virtual resources, create only, nothing stored (their handlers are in lib/authz/api).
 * LocalSubjectAccessReview is namespaced, the others cluster-wide. Their bodies are type-checked
 * as Kubernetes decodes them (400).
 */
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { Schema } from '../../scheme/schema';
import { decodeProblem } from '../../scheme/decode-check';

/** A create-only kind of the flavor's authorization group that stores nothing. */
export function reviewKind(naming: Naming, kind: string, resource: string, schema: Schema, namespaced = false): ResourceDef {
  return {
    group: naming.group('authorization'), version: 'v1', kind, listKind: `${kind}List`, resource, singular: kind.toLowerCase(),
    namespaced, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'path-segment', schema,
    strategy: { checkDecode: (obj) => decodeProblem(obj, schema, kind) },
    virtual: true,
  };
}
