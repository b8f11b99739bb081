/**
 * The ResourceQuota admission plugin (validating phase, as Kubernetes'): every create (and
 * update of services and claims) of a namespaced resource, but events and subresources, is
 * checked against the namespace's quotas and charged to them before the object is written
 * (evaluate.ts). A namespace without quotas, for a resource without limitedResources, costs one
 * cache lookup. Deletes are not charged back here: the quota controller recalculates.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';
import { EvaluatorRegistry } from './evaluators/index';
import { QuotaConfiguration } from './config';
import { QuotaEvaluator } from './evaluate';
import { QuotaStore } from './quota-store';

/** Resources Kubernetes' quota configuration ignores (DefaultIgnoredResources): events. */
const ignored = (naming: Naming, group: string, resource: string): boolean =>
  resource === 'events' && (group === '' || group === naming.group('events'));

export function resourceQuotaPlugin(naming: Naming, quotas: QuotaStore, config: QuotaConfiguration): AdmissionPlugin {
  const evaluators = new EvaluatorRegistry(naming);
  const evaluator = new QuotaEvaluator(quotas, () => config.limitedResources);
  const limitedGroupResources = new Set(config.limitedResources.map((l) => `${l.apiGroup}/${l.resource}`));
  return {
    name: 'ResourceQuota',
    async validate(attrs) {
      const op = attrs.operation;
      if ((op !== 'CREATE' && op !== 'UPDATE') || attrs.subresource || !attrs.namespace || !attrs.object || attrs.resource.virtual) return;
      const { group, resource } = attrs.resource;
      if (ignored(naming, group, resource)) return;
      const e = evaluators.get(group, resource);
      if (!e.handles(op)) return;
      if (!limitedGroupResources.has(`${group}/${resource}`) && !(await quotas.any(attrs.namespace))) return;
      await evaluator.evaluate(attrs, { operation: op, object: attrs.object, oldObject: attrs.oldObject, group, resource }, e);
    },
  };
}
