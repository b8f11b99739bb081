/**
 * Kubernetes' generic object-count evaluator (generic/evaluator.go): one `count/<resource>.<group>`
 * (core: `count/<resource>`) per object of any served resource, custom resources included, and
 * for the core kinds Kubernetes counts under their old names also that name (configmaps,
 * secrets, replicationcontrollers, resourcequotas). Only creates are charged; no scopes match.
 */
import { quantity } from '../resource-list';
import { Evaluator, matchesNoScope } from './types';

const LEGACY_NAMES: Record<string, string> = {
  '/configmaps': 'configmaps', '/secrets': 'secrets', '/replicationcontrollers': 'replicationcontrollers', '/resourcequotas': 'resourcequotas',
};

/** The quota name counting objects of `resource` in `group`. */
export const objectCountName = (group: string, resource: string): string => (group ? `count/${resource}.${group}` : `count/${resource}`);

export function objectCountEvaluator(group: string, resource: string): Evaluator {
  const names = [objectCountName(group, resource)];
  const legacy = LEGACY_NAMES[`${group}/${resource}`];
  if (legacy) names.push(legacy);
  const usage = new Map(names.map((n) => [n, quantity(1)]));
  return {
    groupResource: `${group}/${resource}`,
    handles: (op) => op === 'CREATE',
    matchingResources: (items) => items.filter((n) => names.includes(n)),
    matchesScope: matchesNoScope,
    usage: () => new Map(usage),
  };
}
