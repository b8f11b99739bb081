/**
 * TokenReview at authentication/v1beta1: removed from Kubernetes in 1.22 (deprecated in 1.19),
 * served here only when `--runtime-config=<authentication group>/v1beta1=true` (or emulation of
 * an earlier release) switches it on, with Kubernetes' deprecation warning. Its shape is v1's;
 * the same handler (lib/authn/api/token-review.ts) answers it at the version it was asked in.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { tokenReviewResource } from './definition';

export function tokenReviewV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = tokenReviewResource(naming);
  return {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
  };
}
