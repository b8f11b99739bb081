/**
 * The well-known Ingress annotations, spelled with the flavor's label domain
 * (`kubernetes.io` for Kubernetes' names, `orch.io` in the orch flavor): the deprecated
 * per-Ingress class annotation, and the mark of the default IngressClass that the
 * DefaultIngressClass admission plugin reads.
 */
import { Naming } from '../../naming';

export interface IngressNames {
  /** `kubernetes.io/ingress.class`: the class of an Ingress before spec.ingressClassName. */
  ingressClassAnnotation: string;
  /** `ingressclass.kubernetes.io/is-default-class`: "true" marks the default IngressClass. */
  isDefaultClassAnnotation: string;
}

export function ingressNames(naming: Naming): IngressNames {
  return {
    ingressClassAnnotation: `${naming.labelDomain}/ingress.class`,
    isDefaultClassAnnotation: `ingressclass.${naming.labelDomain}/is-default-class`,
  };
}
