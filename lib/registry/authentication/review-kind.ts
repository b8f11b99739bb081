/**
 * The authentication group's kinds (`authentication.<domain>/v1`) as one builder makes them:
 * TokenReview and SelfSubjectReview are virtual resources (create only, nothing stored; their
 * handlers are in lib/authn/api), TokenRequest is the body of `serviceaccounts/<name>/token`.
 */
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { Schema } from '../../scheme/schema';

/** A create-only, cluster-scoped kind of the flavor's authentication group that stores nothing. */
export function reviewKind(naming: Naming, kind: string, resource: string, schema: Schema): ResourceDef {
  return {
    group: naming.group('authentication'), version: 'v1', kind, listKind: `${kind}List`, resource, singular: resource.replace(/s$/, ''),
    namespaced: false, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'path-segment', schema, strategy: {}, virtual: true,
  };
}
