/**
 * SelfSubjectReview (create; what `kubectl auth whoami` sends): 201 with the caller's user as
 * the server sees it after authentication and impersonation.
 */
import { CustomScope } from '../../api/resource-handler';
import { readBodyAs } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { errors } from '../../meta/api-errors';
import { userInfoJson } from './user-info';
import { now } from '../../registry/system-fields';

export async function handleSelfSubjectReview(s: CustomScope): Promise<void> {
  if (s.info.namespace) throw errors.badRequest(`namespace is not allowed on this type: ${s.info.namespace}`);
  const review = await readBodyAs(s.ctx, s.def, undefined);
  if (!s.user) throw errors.badRequest('no user present on request');
  writeObject(s.ctx, 201, {
    apiVersion: review.apiVersion, kind: review.kind,
    metadata: { creationTimestamp: now() },
    status: { userInfo: userInfoJson(s.user) },
  });
}
