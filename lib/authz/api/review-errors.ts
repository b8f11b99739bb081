/**
 * The 422 of an access review, as kube-apiserver writes it: its REST handlers name the kind of
 * the decoded (internal) object, whose kind is empty, so the message reads
 * `.authorization.k8s.io "" is invalid: ...` and the details carry only the group and causes.
 */
import { ApiError, errors } from '../../meta/api-errors';
import { FieldError } from '../../meta/field-errors';

export function invalidReview(group: string, causes: FieldError[]): ApiError {
  const e = errors.invalid('', group, '', causes);
  return new ApiError(422, 'Invalid', e.message, { group, causes: e.details?.causes });
}
