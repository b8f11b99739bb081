/**
 * cel-go's sets extension (ext.Sets(), in Kubernetes' base environment since 1.29): `sets.contains(a, b)`
 * (every element of b is in a), `sets.equivalent(a, b)` (each contains the other, duplicates ignored),
 * `sets.intersects(a, b)` (some element in both), with CEL equality (1 == 1u == 1.0).
 *
 * Declared over list<dyn> (cel-go: list(T), list(T)): the engine types a dyn list at runtime by its
 * first element, so list(T) would refuse [1, 2.5] from JSON at runtime.
 *
 * Cost (library/cost.go): size(a) * size(b) comparisons (SET_COSTS).
 */

import { registerLibrary } from '../environment';
import { celEquals } from './compare';
import { declareNamespace } from './engine';
import type { CostTable } from './cost-table';

const has = (list: unknown[], v: unknown): boolean => list.some((e) => celEquals(e, v));

export function setsContains(a: unknown[], b: unknown[]): boolean {
  return b.every((v) => has(a, v));
}

export const SET_COSTS: CostTable = {
  'sets.contains': { kind: 'product', of: ['arg0', 'arg1'], factor: 1, factor2: 1 },
  'sets.equivalent': { kind: 'product', of: ['arg0', 'arg1'], factor: 1, factor2: 1 },
  'sets.intersects': { kind: 'product', of: ['arg0', 'arg1'], factor: 1, factor2: 1 },
};

registerLibrary((env) => {
  declareNamespace(env, 'sets', 'kubernetes.SetsNamespace');
  env.registerFunction('kubernetes.SetsNamespace.contains(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => setsContains(a, b));
  env.registerFunction('kubernetes.SetsNamespace.equivalent(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => setsContains(a, b) && setsContains(b, a));
  env.registerFunction('kubernetes.SetsNamespace.intersects(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => a.some((v) => has(b, v)));
});
