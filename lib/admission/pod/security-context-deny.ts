/**
 * SecurityContextDeny (deprecated in Kubernetes, for clusters without Pod Security): refuses
 * pods that set the security-context fields able to raise privileges: supplementalGroups,
 * seLinuxOptions, runAsUser and fsGroup at pod level, seLinuxOptions and runAsUser in init
 * containers and containers (Kubernetes' list: runAsGroup is not on it). Create and update;
 * the first field found is named, as Kubernetes does.
 */
import { AdmissionPlugin } from '../interfaces';
import { Json, obj, podContainers, podSpec } from './pod-json';
import { isPodWrite, podForbidden } from './pod-attributes';

const set = (o: Json | undefined, key: string): boolean => o !== undefined && o[key] !== undefined && o[key] !== null;

const POD_FIELDS: [string, string][] = [
  ['supplementalGroups', 'SupplementalGroups'], ['seLinuxOptions', 'SELinuxOptions'], ['runAsUser', 'RunAsUser'], ['fsGroup', 'FSGroup'],
];
const CONTAINER_FIELDS: [string, string][] = [['seLinuxOptions', 'SELinuxOptions'], ['runAsUser', 'RunAsUser']];

/** The refusal for the first elevated field `spec` sets, or undefined. */
export function deniedSecurityContextField(spec: Json): string | undefined {
  const podContext = obj(spec, 'securityContext');
  for (const [field, goName] of POD_FIELDS) {
    if (set(podContext, field)) return `pod.Spec.SecurityContext.${goName} is forbidden`;
  }
  for (const { container } of podContainers(spec, ['initContainers', 'containers'])) {
    const context = obj(container, 'securityContext');
    for (const [field, goName] of CONTAINER_FIELDS) {
      if (set(context, field)) return `SecurityContext.${goName} is forbidden`;
    }
  }
  return undefined;
}

export function securityContextDenyPlugin(): AdmissionPlugin {
  return {
    name: 'SecurityContextDeny',
    async validate(attrs) {
      if (!isPodWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      const why = deniedSecurityContextField(podSpec(attrs.object));
      if (why) throw podForbidden(attrs.object?.metadata?.name ?? '', why);
    },
  };
}
