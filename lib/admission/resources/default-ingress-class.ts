/**
 * DefaultIngressClass: an Ingress created without spec.ingressClassName and without the
 * deprecated class annotation (`kubernetes.io/ingress.class`, the flavor's spelling) gets the
 * IngressClass marked default with `ingressclass.<domain>/is-default-class: "true"`. Nothing
 * changes when no class is default; updates and subresources are left alone.
 *
 * Several default classes refuse the Ingress (403, Kubernetes' words up to 1.27: `<n> default
 * IngressClasses were found, only 1 allowed`), as the spec's table says, and as this server's
 * DefaultStorageClass does. Kubernetes 1.28 and later pick the newest of them instead.
 */
import { AdmissionPlugin } from '../interfaces';
import { errors } from '../../meta/api-errors';
import { Naming } from '../../naming';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { listStoredObjects } from './stored-objects';
import { ingressNames } from '../../registry/networking/annotations';
import { admissionForbidden } from './admission-forbidden';

/** The DefaultIngressClass plugin over the server's IngressClasses. */
export function defaultIngressClass(stores: StoreIndex, naming: Naming): AdmissionPlugin {
  const group = naming.group('networking');
  const key = storeKey(group, 'v1', 'ingressclasses');
  const names = ingressNames(naming);
  return {
    name: 'DefaultIngressClass',
    resources: [`${group}/ingresses`],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.subresource || !attrs.object) return;
      if (attrs.resource.group !== group || attrs.resource.resource !== 'ingresses') return;
      const spec = (attrs.object.spec ??= {}) as { ingressClassName?: string | null };
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      if (names.ingressClassAnnotation in (attrs.object.metadata?.annotations ?? {})) return;
      const defaults = (await listStoredObjects(stores, key))
        .filter((c) => c.metadata?.annotations?.[names.isDefaultClassAnnotation] === 'true');
      if (!defaults.length) return;
      if (defaults.length > 1) {
        throw admissionForbidden(attrs, errors.internal(`${defaults.length} default IngressClasses were found, only 1 allowed`).message);
      }
      spec.ingressClassName = defaults[0].metadata?.name as string;
    },
  };
}
