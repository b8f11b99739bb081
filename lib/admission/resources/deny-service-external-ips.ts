/**
 * DenyServiceExternalIPs (plugin/pkg/admission/network/denyserviceexternalips, off by default):
 * a Service may not gain external IPs. A create with any, or an update that adds one the stored
 * Service did not have, is refused with 403 and Kubernetes' words; removing them, or keeping
 * those already there, passes. A validating plugin: it sees the object after defaulting.
 */
import { AdmissionPlugin } from '../interfaces';
import { admissionForbidden } from './admission-forbidden';
import { isCore } from './storage-classes';

const externalIPs = (obj: unknown): string[] => {
  const spec = (obj as { spec?: { externalIPs?: unknown } } | undefined)?.spec;
  return Array.isArray(spec?.externalIPs) ? spec.externalIPs.map(String) : [];
};

export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: 'DenyServiceExternalIPs',
    resources: ['/services'],
    async validate(attrs) {
      if ((attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || !isCore(attrs, 'services') || !attrs.object) return;
      const wanted = externalIPs(attrs.object);
      if (!wanted.length) return;
      const had = new Set(attrs.oldObject ? externalIPs(attrs.oldObject) : []);
      if (attrs.oldObject && wanted.every((ip) => had.has(ip))) return;
      throw admissionForbidden(attrs, 'Use of external IPs is denied by admission control');
    },
  };
}
