/**
 * ExtendedResourceToleration: a pod requesting an extended resource (a domain-prefixed name
 * outside `<domain>/`, such as `example.com/gpu`) in a container or init container gets the
 * toleration `<resource>` Exists NoSchedule, so nodes tainted for that hardware accept it.
 * Added in name order, replacing a toleration of the same key, effect, operator and value.
 * Create and update of the pod itself.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';
import { isQualifiedName } from '../../meta/validation';
import { obj, podContainers, podSpec } from './pod-json';
import { isPodWrite } from './pod-attributes';
import { addOrUpdateToleration, specTolerations } from './tolerations';

/** IsExtendedResourceName: not native (no '/', or in the native domain), quota-nameable. */
export function isExtendedResourceName(name: string, naming: Naming): boolean {
  if (!name.includes('/') || name.includes(`${naming.labelDomain}/`) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function extendedResourceTolerationPlugin(naming: Naming): AdmissionPlugin {
  return {
    name: 'ExtendedResourceToleration',
    async admit(attrs) {
      if (!isPodWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      const spec = podSpec(attrs.object);
      const names = new Set<string>();
      for (const { container } of podContainers(spec, ['containers', 'initContainers'])) {
        for (const name of Object.keys(obj(obj(container, 'resources'), 'requests') ?? {})) {
          if (isExtendedResourceName(name, naming)) names.add(name);
        }
      }
      let tolerations = specTolerations(spec);
      let changed = false;
      for (const key of [...names].sort()) {
        const next = addOrUpdateToleration(tolerations, { key, operator: 'Exists', effect: 'NoSchedule' });
        if (next) {
          tolerations = next;
          changed = true;
        }
      }
      if (changed) spec.tolerations = tolerations;
    },
  };
}
