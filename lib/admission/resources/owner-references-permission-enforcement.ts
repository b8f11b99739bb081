/**
 * OwnerReferencesPermissionEnforcement (off by default): garbage-collection rights.
 * - An update that changes metadata.ownerReferences needs `delete` on the object itself
 *   (`cannot set an ownerRef on a resource you can't delete: <reason>, <error>`). A create is
 *   not asked: whoever may create an object could as well not have created it.
 * - Setting blockOwnerDeletion on a reference (new, or turned on) needs `update` on the owner's
 *   `finalizers` subresource, since it holds up the owner's foreground deletion
 *   (`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set
 *   finalizers on: ...`). The owner's kind is mapped to its resource through the kinds served.
 * pods/status is exempt (its strategy keeps owner references unchanged). Go prints a missing
 * error as `<nil>`, which the messages keep.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { errors } from '../../meta/api-errors';
import { Authorizer } from '../../authz/authorizer';
import { AuthorizationAttributes } from '../../authz/attributes';
import { OwnerReference, ResourceDef } from '../../scheme/types';
import { semanticEqual } from '../../registry/core/semantic-equal';
import { admissionForbidden } from './admission-forbidden';

const refsOf = (attrs: AdmissionAttributes, which: 'object' | 'oldObject'): OwnerReference[] => {
  const refs = attrs[which]?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs : [];
};

/** isChangingOwnerReference: a create with references, or an update whose list differs (order counts). */
export function changesOwnerReferences(attrs: AdmissionAttributes): boolean {
  const next = refsOf(attrs, 'object');
  if (!attrs.oldObject) return next.length > 0;
  const prev = refsOf(attrs, 'oldObject');
  return prev.length !== next.length || prev.some((r, i) => !semanticEqual(r, next[i]));
}

/** The references that block owner deletion now and did not before (matched by uid). */
export function newBlockingReferences(attrs: AdmissionAttributes): OwnerReference[] {
  const blocking = refsOf(attrs, 'object').filter((r) => r?.blockOwnerDeletion === true);
  if (!blocking.length || !attrs.oldObject) return blocking;
  const before = new Map(refsOf(attrs, 'oldObject').map((r) => [r?.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}

/** schema.ParseGroupVersion: "" / "v1" / "group/version"; more slashes is an error. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (!apiVersion || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The served resources of the reference's kind (RESTMappings), or Kubernetes' no-match error. */
function mappingsOf(ref: OwnerReference, served: () => Iterable<ResourceDef>): ResourceDef[] {
  const { group, version } = parseGroupVersion(String(ref.apiVersion ?? ''));
  const seen = new Set<string>();
  const out: ResourceDef[] = [];
  for (const def of served()) {
    if (def.group !== group || def.kind !== ref.kind || (version && def.version !== version)) continue;
    const key = `${def.group}/${def.version}/${def.resource}`;
    if (!seen.has(key)) { seen.add(key); out.push(def); }
  }
  if (!out.length) {
    const gv = group ? `${group}/${version}` : version;
    throw new Error(`no matches for kind ${JSON.stringify(String(ref.kind ?? ''))} in version ${JSON.stringify(gv)}`);
  }
  return out;
}

/**
 * @param holder the server's authorization (set before anything is served)
 * @param served the served kinds (the stores' definitions), read when a reference is resolved
 */
export function ownerReferencesPermissionEnforcement(holder: { authorization?: { chain: Authorizer } },
  served: () => Iterable<ResourceDef>): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    async validate(attrs) {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      if (attrs.resource.group === '' && attrs.resource.resource === 'pods' && attrs.subresource === 'status') return;
      if (!changesOwnerReferences(attrs)) return;
      const authorizer = holder.authorization?.chain;
      if (!authorizer) throw errors.internal('OwnerReferencesPermissionEnforcement requires an authorizer');
      const user = userOf(attrs);
      const ask = async (a: AuthorizationAttributes) => {
        const r = await authorizer.authorize(a);
        return { allowed: r.decision === 'allow', why: `${r.reason}, ${r.error ?? '<nil>'}` };
      };
      if (attrs.operation !== 'CREATE') {
        const r = await ask({
          user, verb: 'delete', isResourceRequest: true, path: '', apiGroup: attrs.resource.group, apiVersion: attrs.resource.version,
          resource: attrs.resource.resource, subresource: attrs.subresource ?? '', namespace: attrs.namespace ?? '', name: attrs.name,
        });
        if (!r.allowed) throw admissionForbidden(attrs, `cannot set an ownerRef on a resource you can't delete: ${r.why}`);
      }
      for (const ref of newBlockingReferences(attrs)) {
        let mappings: ResourceDef[];
        try {
          mappings = mappingsOf(ref, served);
        } catch (err) {
          throw admissionForbidden(attrs, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${
            ref.apiVersion} Kind ${ref.kind}: ${(err as Error).message}`);
        }
        for (const def of mappings) {
          const r = await ask({
            user, verb: 'update', isResourceRequest: true, path: '', apiGroup: def.group, apiVersion: def.version,
            resource: def.resource, subresource: 'finalizers', namespace: def.namespaced ? attrs.namespace ?? '' : '', name: String(ref.name ?? ''),
          });
          if (!r.allowed) {
            throw admissionForbidden(attrs, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${r.why}`);
          }
        }
      }
    },
  };
}
