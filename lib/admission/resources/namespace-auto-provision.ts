/**
 * NamespaceAutoProvision: a create in a namespace that does not exist first creates that
 * namespace (as the server itself), so that NamespaceLifecycle, which runs after it, finds it.
 * A dry run creates nothing; a namespace someone else created meanwhile (AlreadyExists) is
 * fine; any other failure refuses the request with 403 as Kubernetes words it.
 */
import { AdmissionPlugin } from '../interfaces';
import { ApiError } from '../../meta/api-errors';
import { NamespaceLookup } from '../namespace-lifecycle';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { admissionForbidden } from './admission-forbidden';
import { inNamespace } from './namespace-exists';

/**
 * @param stores the server's stores (the Namespace store is taken from them when first needed)
 * @param fieldManager the manager recorded on namespaces this plugin creates
 */
export function namespaceAutoProvision(lookup: NamespaceLookup, stores: StoreIndex, fieldManager: string): AdmissionPlugin {
  return {
    name: 'NamespaceAutoProvision',
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.dryRun || !inNamespace(attrs)) return;
      try {
        if (await lookup.get(attrs.namespace, false)) return;
      } catch (err) {
        throw admissionForbidden(attrs, (err as Error).message);
      }
      const namespaces = stores.get(storeKey('', 'v1', 'namespaces'));
      if (!namespaces) throw admissionForbidden(attrs, 'not yet ready to handle request');
      try {
        await namespaces.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: attrs.namespace } }, { dryRun: false, fieldManager });
      } catch (err) {
        if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists') return;
        throw admissionForbidden(attrs, (err as Error).message);
      }
    },
  };
}
