/**
 * NamespaceExists: a create, update or delete of a namespaced object is refused with 404
 * NotFound (`namespaces "x" not found`) when its namespace does not exist. The namespace is
 * looked up in the watch cache first and, when missing there, read from etcd (a namespace
 * created a moment ago), as Kubernetes asks its informer and then the server.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';
import { NamespaceLookup } from '../namespace-lifecycle';

/** Whether the plugins about namespaces look at this request: namespaced, and not about a Namespace itself. */
export function inNamespace(attrs: AdmissionAttributes): attrs is AdmissionAttributes & { namespace: string } {
  if (!attrs.namespace) return false;
  return !(attrs.resource.group === '' && attrs.resource.resource === 'namespaces');
}

/** The NamespaceExists plugin over a namespace lookup. */
export function namespaceExists(lookup: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    async validate(attrs) {
      if (attrs.operation === 'CONNECT' || !inNamespace(attrs)) return;
      let ns;
      try {
        ns = await lookup.get(attrs.namespace, false);
      } catch (err) {
        throw err instanceof ApiError && err.code >= 500 ? err : errors.internal((err as Error).message);
      }
      if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    },
  };
}
