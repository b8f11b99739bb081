/**
 * PodTolerationRestriction: a new pod gets its namespace's default tolerations (annotation
 * `scheduler.alpha.<domain>/defaultTolerations`, a JSON list; else the configuration's
 * `default`) merged into its own, and every pod that is not BestEffort tolerates
 * `node.<domain>/memory-pressure:NoSchedule`. The pod's tolerations must then be covered by the
 * namespace's whitelist (annotation `scheduler.alpha.<domain>/tolerationsWhitelist`; else the
 * configuration's `whitelist`; an empty one allows everything). Create and update.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { NamespaceLookup } from '../namespace-lifecycle';
import { podAnnotations, podSpec } from './pod-json';
import { isPodWrite } from './pod-attributes';
import { isBestEffort } from './pod-qos';
import { Toleration, mergeTolerations, specTolerations, tolerationFrom, verifyAgainstWhitelist } from './tolerations';
import { TolerationRestrictionConfig } from './pod-toleration-restriction-config';

export function podTolerationRestrictionPlugin(naming: Naming, namespaces: NamespaceLookup, config: TolerationRestrictionConfig): AdmissionPlugin {
  const defaultsKey = `scheduler.alpha.${naming.labelDomain}/defaultTolerations`;
  const whitelistKey = `scheduler.alpha.${naming.labelDomain}/tolerationsWhitelist`;

  async function namespaceOf(name: string): Promise<ApiObject> {
    const ns = await namespaces.get(name, false);
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, name);
    return ns;
  }

  /** The annotation's tolerations: undefined when absent, [] when empty. */
  function fromAnnotation(ns: ApiObject, key: string): Toleration[] | undefined {
    const annotations = podAnnotations(ns);
    if (!(key in annotations)) return undefined;
    if (!annotations[key]) return [];
    let list: unknown;
    try {
      list = JSON.parse(annotations[key]);
    } catch (err) {
      throw errors.internal(`${key} of namespace ${ns.metadata?.name}: ${(err as Error).message}`);
    }
    if (list === null) return [];
    if (!Array.isArray(list)) throw errors.internal(`${key} of namespace ${ns.metadata?.name}: not a list of tolerations`);
    return list.map(tolerationFrom);
  }

  const applies = (attrs: AdmissionAttributes) => isPodWrite(attrs) && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE');

  return {
    name: 'PodTolerationRestriction',
    async admit(attrs) {
      if (!applies(attrs)) return;
      const spec = podSpec(attrs.object, true);
      const extra: Toleration[] = [];
      if (attrs.operation === 'CREATE') {
        extra.push(...(fromAnnotation(await namespaceOf(attrs.namespace ?? ''), defaultsKey) ?? config.default));
      }
      if (!isBestEffort(spec)) extra.push({ key: `node.${naming.labelDomain}/memory-pressure`, operator: 'Exists', effect: 'NoSchedule' });
      if (extra.length) spec.tolerations = mergeTolerations(specTolerations(spec), extra);
    },
    async validate(attrs) {
      if (!applies(attrs)) return;
      const tolerations = specTolerations(podSpec(attrs.object));
      if (!tolerations.length) return;
      let whitelist = fromAnnotation(await namespaceOf(attrs.namespace ?? ''), whitelistKey);
      let scope = 'namespace';
      if (whitelist === undefined) {
        whitelist = config.whitelist;
        scope = 'cluster';
      }
      if (!verifyAgainstWhitelist(tolerations, whitelist)) {
        // Kubernetes returns a bare error here; it is the requester's pod that does not fit.
        throw new ApiError(403, 'Forbidden', `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
      }
    },
  };
}
