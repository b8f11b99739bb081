/**
 * Ingress (networking.k8s.io/v1, namespaced, short name `ing`): HTTP routes from hosts and paths
 * to Services. The spec is mutable (changes bump metadata.generation); the status (the
 * load-balancer points an ingress controller reports) is cleared on create and written only
 * through `/status`, which keeps the spec. A create with the deprecated
 * `kubernetes.io/ingress.class` annotation and no spec.ingressClassName is warned about, as
 * kube-apiserver does. The DefaultIngressClass admission plugin fills the class on create.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { statusSubresource } from '../../status-subresource';
import { semanticEqual } from '../../core/semantic-equal';
import { ingressSchema } from './schema';
import { ingressTable } from './table';
import { ingressNames } from '../annotations';
import { ingressSpecOf, validateIngressCreate, validateIngressStatus, validateIngressUpdate } from './validation';

const KIND = 'Ingress';

export function ingressResource(naming: Naming): ResourceDef {
  const classAnnotation = ingressNames(naming).ingressClassAnnotation;
  return {
    group: naming.group('networking'), version: 'v1', kind: KIND, listKind: 'IngressList',
    resource: 'ingresses', singular: 'ingress', namespaced: true, shortNames: ['ing'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => ({ ...status, loadBalancer: status.loadBalancer ?? {} }))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: ingressSchema,
    table: ingressTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, ingressSchema, KIND),
      prepareForCreate: (obj, ctx) => {
        obj.spec ??= {};
        // Go writes the value struct loadBalancer even when empty.
        obj.status = { loadBalancer: {} };
        const annotations = obj.metadata?.annotations ?? {};
        if (classAnnotation in annotations && (ingressSpecOf(obj).ingressClassName ?? null) === null) {
          ctx.warn?.(`annotation "${classAnnotation}" is deprecated, please use 'spec.ingressClassName' instead`);
        }
      },
      prepareForUpdate: (obj, old) => { obj.spec ??= {}; obj.status = old.status ?? { loadBalancer: {} }; },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateIngressCreate(obj, classAnnotation),
      // Main writes carry the stored status and /status writes the stored spec: both are checked.
      validateUpdate: (obj, old) => [...validateIngressUpdate(obj, old), ...validateIngressStatus(obj)],
    },
  };
}
