/**
 * PodNodeSelector: a new pod's nodeSelector is merged with its namespace's node selector, the
 * annotation `scheduler.alpha.<domain>/node-selector`, or, when the namespace has none, the
 * configuration's `clusterDefaultNodeSelector`; a pod selector that contradicts it is refused.
 * The configuration (`podNodeSelectorPluginConfig`) may also give, per namespace name, a
 * whitelist the merged selector must stay within. Create only, as Kubernetes.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError, errors } from '../../meta/api-errors';
import { Naming } from '../../naming';
import { NamespaceLookup } from '../namespace-lifecycle';
import { isObject, podSpec, stringMap } from './pod-json';
import { isPodWrite, podForbidden } from './pod-attributes';
import { LabelsMap, labelsConflict, mergeLabels, selectorToLabelsMap } from './labels-map';

/** The `podNodeSelectorPluginConfig` map (`clusterDefaultNodeSelector` and namespace names). */
export function readPodNodeSelectorConfig(config: unknown): Record<string, string> {
  if (config === undefined || config === null) return {};
  if (!isObject(config)) throw new Error('the PodNodeSelector configuration must be an object');
  const map = config.podNodeSelectorPluginConfig;
  if (map === undefined || map === null) return {};
  if (!isObject(map) || Object.values(map).some((v) => typeof v !== 'string')) {
    throw new Error('podNodeSelectorPluginConfig must map names to node selector strings');
  }
  return map as Record<string, string>;
}

/** Every pod label is in the whitelist with the same value (an empty whitelist allows all). */
const withinWhitelist = (labels: LabelsMap, whitelist: LabelsMap): boolean =>
  !Object.keys(whitelist).length || Object.entries(labels).every(([k, v]) => whitelist[k] === v);

// Errors reading a selector are the server's (its configuration or a namespace's annotation).
const parsed = (selector: string): LabelsMap => {
  try {
    return selectorToLabelsMap(selector);
  } catch (err) {
    throw errors.internal((err as Error).message);
  }
};

export function podNodeSelectorPlugin(naming: Naming, namespaces: NamespaceLookup, config: Record<string, string>): AdmissionPlugin {
  const annotation = `scheduler.alpha.${naming.labelDomain}/node-selector`;

  async function namespaceSelector(name: string): Promise<LabelsMap> {
    const ns = await namespaces.get(name, false);
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, name);
    const annotations = stringMap(ns.metadata as Record<string, unknown>, 'annotations');
    return parsed(annotation in annotations ? annotations[annotation] : config.clusterDefaultNodeSelector ?? '');
  }

  const applies = (attrs: AdmissionAttributes) => isPodWrite(attrs) && attrs.operation === 'CREATE';
  const conflict = (attrs: AdmissionAttributes): ApiError =>
    podForbidden(attrs.object?.metadata?.name ?? '', 'pod node label selector conflicts with its namespace node label selector');

  return {
    name: 'PodNodeSelector',
    async admit(attrs) {
      if (!applies(attrs)) return;
      const spec = podSpec(attrs.object, true);
      const fromNamespace = await namespaceSelector(attrs.namespace ?? '');
      const own = stringMap(spec, 'nodeSelector');
      if (labelsConflict(fromNamespace, own)) throw conflict(attrs);
      const merged = mergeLabels(fromNamespace, own);
      if (Object.keys(merged).length) spec.nodeSelector = merged;
    },
    async validate(attrs) {
      if (!applies(attrs)) return;
      const own = stringMap(podSpec(attrs.object), 'nodeSelector');
      if (labelsConflict(await namespaceSelector(attrs.namespace ?? ''), own)) throw conflict(attrs);
      if (!withinWhitelist(own, parsed(config[attrs.namespace ?? ''] ?? ''))) {
        throw podForbidden(attrs.object?.metadata?.name ?? '', 'pod node label selector labels conflict with its namespace whitelist');
      }
    },
  };
}
