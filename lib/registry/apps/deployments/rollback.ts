/**
 * `deployments/rollback` of the removed Deployment versions (apps/v1beta1, extensions/v1beta1),
 * as Kubernetes 1.15 served it (pkg/registry/apps/deployment/storage RollbackREST): POST a
 * DeploymentRollback and the Deployment gets its `updatedAnnotations` and `spec.rollbackTo`
 * (stored in apps/v1's `deprecated.deployment.rollback.to` annotation); the deployment
 * controller that would then roll back and clear the field is not here. The handler is
 * lib/api/handlers/deployment-rollback.ts.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { validateAnnotations } from '../../../meta/validation';
import { int64, object, str, stringMap } from '../../../scheme/schema';
import { ApiObject, ResourceDef, SubresourceDef } from '../../../scheme/types';
import { isObject } from '../../core/json-fields';

const KIND = 'DeploymentRollback';

/** The subresource on a Deployment def of a removed version. */
export const rollbackSubresource: SubresourceDef = { name: 'rollback', kind: KIND, verbs: ['create'] };

/** DeploymentRollback at `group`/`version` as a body kind (decoding, field validation). */
export function deploymentRollbackKind(group: string, version: string): ResourceDef {
  return {
    group, version, kind: KIND, listKind: `${KIND}List`, resource: 'rollback', singular: 'rollback',
    namespaced: true, shortNames: [], categories: [], verbs: [], subresources: [], deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain', virtual: true,
    schema: object({
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      name: str('Required: This must match the Name of a deployment.'),
      updatedAnnotations: stringMap('The annotations to be updated to a deployment'),
      rollbackTo: object({ revision: int64('The revision to rollback to. If set to 0, rollback to the last revision.') }, { description: 'The config of this deployment rollback.' }),
    }, { required: ['name', 'rollbackTo'], description: 'DEPRECATED. DeploymentRollback stores the information required to rollback a deployment.' }),
    strategy: {},
  };
}

/** ValidateDeploymentRollback. */
export function validateDeploymentRollback(body: ApiObject): FieldError[] {
  const errs = validateAnnotations(body.updatedAnnotations, 'updatedAnnotations');
  if (typeof body.name !== 'string' || body.name === '') errs.push(fieldErrors.required('name', 'name is required'));
  const rollbackTo = isObject(body.rollbackTo) ? body.rollbackTo : {};
  const revision = typeof rollbackTo.revision === 'number' ? rollbackTo.revision : 0;
  if (revision < 0) errs.push(fieldErrors.invalid('rollback.version', revision, 'must be greater than or equal to 0'));
  return errs;
}

/** The Deployment (at a version with spec.rollbackTo) with the rollback applied (a copy). */
export function withRollback(current: ApiObject, body: ApiObject): ApiObject {
  const annotations = { ...(current.metadata?.annotations ?? {}), ...(isObject(body.updatedAnnotations) ? body.updatedAnnotations as Record<string, string> : {}) };
  const rollbackTo = isObject(body.rollbackTo) ? { ...body.rollbackTo } : {};
  return { ...current, metadata: { ...current.metadata, annotations }, spec: { ...(current.spec as object | undefined), rollbackTo } };
}
