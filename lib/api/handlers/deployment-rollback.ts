/**
 * POST `deployments/<name>/rollback` at apps/v1beta1 and extensions/v1beta1 (Kubernetes 1.15's
 * RollbackREST; the body kind and the change in lib/registry/apps/deployments/rollback.ts): the
 * DeploymentRollback is validated (422 Invalid DeploymentRollback), its name must be the URL's
 * (400), then the Deployment is updated with its annotations and spec.rollbackTo, and the answer
 * is a Status Success "rollback request for deployment <name> succeeded" (201, code 200, as
 * Kubernetes' create handler writes a Status its storage returns with code 200).
 */
import { CustomHandlers, CustomScope, customKey } from '../resource-handler';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from './scope';
import { writeObject } from '../response-writer';
import { errors } from '../../meta/api-errors';
import { GenericStore } from '../../registry/store';
import { deploymentRollbackKind, validateDeploymentRollback, withRollback } from '../../registry/apps/deployments/rollback';
import { ResourceDef } from '../../scheme/types';

function rollbackHandler(def: ResourceDef) {
  const kind = deploymentRollbackKind(def.group, def.version);
  return async (s: CustomScope): Promise<void> => {
    const name = s.info.name as string;
    const body = await readBodyAs(s.ctx, kind, s.info.namespace);
    const errs = validateDeploymentRollback(body);
    if (errs.length) throw errors.invalid('DeploymentRollback', 'apps', typeof body.name === 'string' ? body.name : '', errs);
    if (body.name !== name) throw errors.badRequest('name in URL does not match name in DeploymentRollback object');
    const ctx = requestStrategyContext(s.ctx, s.info.namespace, s.user);
    await (s.store as GenericStore).updateWith(ctx, name, (current) => withRollback(current, body), { ...writeOptionsOf(s.ctx, 'update'), subresource: 'rollback' });
    writeObject(s.ctx, 201, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success',
      message: `rollback request for deployment ${JSON.stringify(name)} succeeded`, code: 200,
    });
  };
}

/** The `/rollback` handlers of every def of `defs` that has that subresource. */
export function deploymentRollbackHandlers(defs: readonly ResourceDef[]): CustomHandlers {
  const out: CustomHandlers = new Map();
  for (const def of defs) {
    if (def.subresources.some((sub) => sub.name === 'rollback')) out.set(customKey(def.group, def.version, def.resource, 'rollback', 'create'), rollbackHandler(def));
  }
  return out;
}
