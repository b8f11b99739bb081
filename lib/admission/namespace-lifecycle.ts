/**
 * NamespaceLifecycle: a namespaced object may only be created in a namespace that exists and
 * is not Terminating, and the system namespaces cannot be deleted.
 */
import { AdmissionPlugin } from './interfaces';
import { ApiError, errors } from '../meta/api-errors';
import { ApiObject } from '../scheme/types';

export interface NamespaceLookup {
  /**
   * The namespace object, or undefined when it does not exist. `live`: a consistent read;
   * otherwise a cached copy may answer (a namespace missing from it is still looked up live).
   */
  get(name: string, live: boolean): Promise<ApiObject | undefined>;
}

/** How long after a namespace's deletion went through here its lookups skip the cache (Kubernetes: 30 s). */
const FORCE_LIVE_LOOKUP_MS = 30_000;

export function namespaceLifecycle(lookup: NamespaceLookup, immortal: string[]): AdmissionPlugin {
  // Namespaces deleted through this server lately: a cached copy may not show the deletion yet.
  const recentlyDeleted = new Map<string, number>();
  const mustLookUpLive = (name: string): boolean => {
    const at = recentlyDeleted.get(name);
    if (at === undefined) return false;
    if (Date.now() - at < FORCE_LIVE_LOOKUP_MS) return true;
    recentlyDeleted.delete(name);
    return false;
  };
  return {
    name: 'NamespaceLifecycle',
    // Kubernetes runs it in the mutating phase, first: a request to a missing namespace is 404 before other plugins look.
    async admit(attrs) {
      if (attrs.resource.resource === 'namespaces' && !attrs.resource.group) {
        if (attrs.operation === 'DELETE' && immortal.includes(attrs.name)) {
          throw errors.forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
        }
        if (attrs.operation === 'DELETE') {
          for (const name of recentlyDeleted.keys()) mustLookUpLive(name);
          recentlyDeleted.set(attrs.name, Date.now());
        }
        return;
      }
      if (!attrs.resource.namespaced || attrs.operation !== 'CREATE' || !attrs.namespace) return;
      const ns = await lookup.get(attrs.namespace, mustLookUpLive(attrs.namespace));
      if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
      if (ns.metadata?.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
        const message = `unable to create new content in namespace ${attrs.namespace} because it is being terminated`;
        throw new ApiError(403, 'Forbidden', `${attrs.resource.group ? `${attrs.resource.resource}.${attrs.resource.group}` : attrs.resource.resource} "${attrs.name}" is forbidden: ${message}`, {
          name: attrs.name, kind: attrs.resource.resource, group: attrs.resource.group || undefined,
          causes: [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
        });
      }
    },
  };
}
