/**
 * LimitPodHardAntiAffinityTopology: a pod's required (hard) anti-affinity terms may only use
 * the hostname topology key (`<domain>/hostname`), so a tenant cannot keep whole zones free of
 * other pods. Preferred terms are not limited. Create and update of the pod itself.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';
import { obj, objects, podSpec, str } from './pod-json';
import { isPodWrite, podForbidden } from './pod-attributes';

export function limitPodHardAntiAffinityTopologyPlugin(naming: Naming): AdmissionPlugin {
  const hostname = `${naming.labelDomain}/hostname`;
  return {
    name: 'LimitPodHardAntiAffinityTopology',
    async validate(attrs) {
      if (!isPodWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      const antiAffinity = obj(obj(podSpec(attrs.object), 'affinity'), 'podAntiAffinity');
      for (const term of objects(antiAffinity, 'requiredDuringSchedulingIgnoredDuringExecution')) {
        const key = str(term, 'topologyKey');
        if (key !== hostname) {
          throw podForbidden(attrs.object?.metadata?.name ?? '',
            `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${hostname} is allowed`);
        }
      }
    },
  };
}
