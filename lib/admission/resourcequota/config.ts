/**
 * The ResourceQuota plugin's section of --admission-control-config-file: Kubernetes'
 * ResourceQuotaConfiguration (apiserver.config.k8s.io/v1, also this flavor's
 * apiserver.config.orch.io/v1) or Configuration (resourcequota.admission.k8s.io/v1beta1 and
 * v1alpha1). `limitedResources` lists resources whose consumption needs a covering quota:
 * `resource` and `apiGroup` name it, `matchContains` the usage names that must be covered,
 * `matchScopes` the scopes (for pods) that must be.
 */
import { ScopeRequirement } from './evaluators/types';

export interface LimitedResource {
  apiGroup: string;
  resource: string;
  matchContains: string[];
  matchScopes: ScopeRequirement[];
}

export interface QuotaConfiguration { limitedResources: LimitedResource[] }

const ACCEPTED: Array<[string, string]> = [
  ['apiserver.config.k8s.io/v1', 'ResourceQuotaConfiguration'], ['apiserver.config.orch.io/v1', 'ResourceQuotaConfiguration'],
  ['resourcequota.admission.k8s.io/v1', 'Configuration'], ['resourcequota.admission.k8s.io/v1beta1', 'Configuration'],
  ['resourcequota.admission.k8s.io/v1alpha1', 'Configuration'],
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown, at: string): string[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`${at} must be a list of strings`);
  return v as string[];
};

/** Reads the plugin's configuration; throws a one-line reason when it is not one. */
export function readQuotaConfiguration(raw: unknown): QuotaConfiguration {
  if (raw === undefined || raw === null) return { limitedResources: [] };
  if (!isObject(raw)) throw new Error('the ResourceQuota configuration must be an object');
  if (!ACCEPTED.some(([v, k]) => raw.apiVersion === v && raw.kind === k)) {
    throw new Error(`expected ResourceQuotaConfiguration of apiserver.config.k8s.io/v1 or Configuration of resourcequota.admission.k8s.io/v1beta1, got ${JSON.stringify(raw.kind)} of ${JSON.stringify(raw.apiVersion)}`);
  }
  const list = raw.limitedResources ?? [];
  if (!Array.isArray(list)) throw new Error('limitedResources must be a list');
  return {
    limitedResources: list.map((entry, i) => {
      const at = `limitedResources[${i}]`;
      if (!isObject(entry) || typeof entry.resource !== 'string' || !entry.resource) throw new Error(`${at}.resource is required`);
      const scopes = entry.matchScopes ?? [];
      if (!Array.isArray(scopes)) throw new Error(`${at}.matchScopes must be a list`);
      return {
        apiGroup: typeof entry.apiGroup === 'string' ? entry.apiGroup : '',
        resource: entry.resource,
        matchContains: strings(entry.matchContains, `${at}.matchContains`),
        matchScopes: scopes.map((s, j) => {
          if (!isObject(s) || typeof s.scopeName !== 'string' || typeof s.operator !== 'string') throw new Error(`${at}.matchScopes[${j}] needs scopeName and operator`);
          return { scopeName: s.scopeName, operator: s.operator, values: strings(s.values, `${at}.matchScopes[${j}].values`) };
        }),
      };
    }),
  };
}
