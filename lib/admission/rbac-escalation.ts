/**
 * RBAC escalation prevention as a validating step of the RBAC kinds' writes: CREATE and UPDATE
 * of roles, clusterroles, rolebindings and clusterrolebindings of the RBAC group are checked by
 * lib/authz/rbac/escalation.ts and refused with 403 Forbidden (`roles.<group> "x" is forbidden:
 * user "bob" (groups=[...]) is attempting to grant RBAC permissions not currently held: ...`)
 * before anything is written; dry runs are checked too.
 *
 * Always on and not switchable: in kube-apiserver this is part of the RBAC storage itself, not an
 * admission plugin, so --enable/disable-admission-plugins do not name it and it runs whatever the
 * authorization modes are. It reads the policy through a holder that the server fills once
 * authorization is built (no request is served before); in-process writers (no user) pass.
 */
import { AdmissionPlugin } from './interfaces';
import { AdmissionAttributes } from '../registry/admission-attributes';
import { errors } from '../meta/api-errors';
import { Authorizer } from '../authz/authorizer';
import { RbacAuthorizer } from '../authz/rbac/rbac-authorizer';
import { EscalationPolicy, checkBindingWrite, checkRoleWrite, escalationAllowed } from '../authz/rbac/escalation';
import { BindingObject, PolicyRule, RoleObject } from '../registry/rbac/types';
import { StoreIndex, storeKey } from '../registry/store-index';

/** What the plugin reads of the server's authorization (lib/authz/build.ts's Authorization). */
export interface EscalationAuthorization {
  /** The mode chain: `escalate` and `bind` are asked of every mode. */
  chain: Authorizer;
  /** RBAC's rules of a user and its index of roles. */
  rbac: RbacAuthorizer;
}

export const RBAC_ESCALATION_PLUGIN = 'RBACEscalation';

/**
 * @param rbacGroup `rbac.authorization.<domain>`
 * @param holder set once authorization is built
 * @param stores the server's stores: a bound role missing from the in-memory index (created a
 *   moment ago, the watch not yet delivered) is read from storage before it is called missing
 */
export function rbacEscalation(rbacGroup: string, holder: { authorization?: EscalationAuthorization }, stores: StoreIndex): AdmissionPlugin {
  const readRole = async (resource: string, namespace: string, name: string): Promise<readonly PolicyRule[] | undefined> => {
    const store = stores.get(storeKey(rbacGroup, 'v1', resource));
    if (!store) return undefined;
    try {
      return ((await store.get(namespace || undefined, name)) as RoleObject).rules ?? [];
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  };
  const policyOf = (a: EscalationAuthorization): EscalationPolicy => ({
    authorizer: a.chain,
    rules: a.rbac,
    roleRules: async (kind, namespace, name) => (kind === 'Role' ? a.rbac.index.roleRules(namespace, name) : a.rbac.index.clusterRoleRules(name))
      ?? readRole(kind === 'Role' ? 'roles' : 'clusterroles', namespace, name),
  });

  return {
    name: RBAC_ESCALATION_PLUGIN,
    async validate(attrs: AdmissionAttributes) {
      if (attrs.resource.group !== rbacGroup || attrs.subresource) return;
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      const user = attrs.ctx.user;
      if (!user || escalationAllowed(user) || !attrs.object) return;
      const resource = attrs.resource.resource;
      if (!['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].includes(resource)) return;
      const authorization = holder.authorization;
      // Deny by default: nothing is served before the holder is set, so this is a wiring fault.
      if (!authorization) throw errors.internal('RBAC escalation checks are not ready');
      const policy = policyOf(authorization);
      const namespace = attrs.resource.namespaced ? attrs.namespace ?? '' : '';
      const reason = resource === 'roles' || resource === 'clusterroles'
        ? await checkRoleWrite(policy, {
          user, group: rbacGroup, resource, namespace, requestName: attrs.operation === 'CREATE' ? '' : attrs.name,
          object: attrs.object as RoleObject, oldObject: attrs.oldObject as RoleObject | undefined,
        })
        : await checkBindingWrite(policy, {
          user, group: rbacGroup, namespace, object: attrs.object as BindingObject, oldObject: attrs.oldObject as BindingObject | undefined,
        });
      if (reason) throw errors.forbidden({ group: rbacGroup, resource }, attrs.name, reason);
    },
  };
}
