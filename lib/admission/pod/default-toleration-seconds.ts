/**
 * DefaultTolerationSeconds: a pod that does not tolerate the `node.<domain>/not-ready` or
 * `node.<domain>/unreachable` NoExecute taints gets a toleration of each (operator Exists) for
 * --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds, so its
 * eviction from a failing node waits that long. A toleration with an empty key or effect
 * already covers the taint. Create and update of the pod itself.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';
import { podSpec } from './pod-json';
import { isPodWrite } from './pod-attributes';
import { Toleration, specTolerations } from './tolerations';

export interface DefaultTolerationSettings { notReadySeconds: number; unreachableSeconds: number }

export function defaultTolerationSecondsPlugin(naming: Naming, settings: DefaultTolerationSettings): AdmissionPlugin {
  const notReady = `node.${naming.labelDomain}/not-ready`;
  const unreachable = `node.${naming.labelDomain}/unreachable`;
  const covers = (t: Toleration, key: string) => (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute');
  return {
    name: 'DefaultTolerationSeconds',
    resources: ['/pods'],
    async admit(attrs) {
      if (!isPodWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      const spec = podSpec(attrs.object, true);
      const present = specTolerations(spec);
      const added: Toleration[] = [];
      if (!present.some((t) => covers(t, notReady))) {
        added.push({ key: notReady, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: settings.notReadySeconds });
      }
      if (!present.some((t) => covers(t, unreachable))) {
        added.push({ key: unreachable, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: settings.unreachableSeconds });
      }
      if (!added.length) return;
      spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...added];
    },
  };
}
