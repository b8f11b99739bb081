/**
 * The PodTolerationRestriction configuration: kind `Configuration` of
 * `podtolerationrestriction.admission.<domain>/v1alpha1` (either flavor's group is read) with
 * `default` (tolerations given to pods of namespaces without their own defaults) and
 * `whitelist` (tolerations allowed where a namespace has no whitelist). Bad configuration
 * stops the start with a one-line reason, as the plugin's initialization fails in Kubernetes.
 */
import { flavors } from '../../naming';
import { isObject } from './pod-json';
import { Toleration, tolerationFrom } from './tolerations';

export interface TolerationRestrictionConfig { default: Toleration[]; whitelist: Toleration[] }

const GROUPS = [flavors.orch, flavors.kubernetes].map((n) => n.group('podtolerationrestriction.admission'));
const OPERATORS = ['Exists', 'Equal', ''];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute', ''];

function tolerations(raw: unknown, field: string): Toleration[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Error(`${field}: must be a list of tolerations`);
  return raw.map((entry, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(entry)) throw new Error(`${at}: must be a toleration`);
    const t = tolerationFrom(entry);
    if (!OPERATORS.includes(t.operator ?? '')) throw new Error(`${at}.operator: Unsupported value: ${JSON.stringify(t.operator)}: supported values: "Equal", "Exists"`);
    if (!EFFECTS.includes(t.effect ?? '')) throw new Error(`${at}.effect: Unsupported value: ${JSON.stringify(t.effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
    if (t.operator === 'Exists' && t.value) throw new Error(`${at}.operator: Invalid value: ${JSON.stringify(t.value)}: value must be empty when \`operator\` is 'Exists'`);
    if (!t.key && t.operator !== 'Exists') throw new Error(`${at}.operator: Invalid value: ${JSON.stringify(t.operator ?? '')}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`);
    return t;
  });
}

/** Reads the plugin's section of --admission-control-config-file (absent: no defaults, no whitelist). */
export function readTolerationRestrictionConfig(config: unknown): TolerationRestrictionConfig {
  if (config === undefined || config === null) return { default: [], whitelist: [] };
  if (!isObject(config)) throw new Error('the PodTolerationRestriction configuration must be an object');
  const [group, version] = String(config.apiVersion ?? '').split('/');
  if (config.kind !== 'Configuration' || !GROUPS.includes(group) || version !== 'v1alpha1') {
    throw new Error(`expected kind Configuration of ${GROUPS[0]}/v1alpha1, got ${JSON.stringify(config.kind)} of ${JSON.stringify(config.apiVersion)}`);
  }
  return { default: tolerations(config.default, 'default'), whitelist: tolerations(config.whitelist, 'whitelist') };
}
