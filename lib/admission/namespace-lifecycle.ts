/**
 * NamespaceLifecycle: a namespaced object may only be created in a namespace that exists and
 * is not Terminating, and the system namespaces cannot be deleted.
 */
import { AdmissionPlugin } from './interfaces';
import { ApiError, errors } from '../meta/api-errors';
import { ApiObject } from '../scheme/types';

export interface NamespaceLookup {
  /** The namespace object, or undefined when it does not exist. */
  get(name: string): Promise<ApiObject | undefined>;
}

export function namespaceLifecycle(lookup: NamespaceLookup, immortal: string[]): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(attrs) {
      if (attrs.resource.resource === 'namespaces' && !attrs.resource.group) {
        if (attrs.operation === 'DELETE' && immortal.includes(attrs.name)) {
          throw errors.forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (!attrs.resource.namespaced || attrs.operation !== 'CREATE' || !attrs.namespace) return;
      const ns = await lookup.get(attrs.namespace);
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
