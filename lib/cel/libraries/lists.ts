/**
 * Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go, unversioned in 1.32):
 * `isSorted`, `min`, `max` over lists of comparable elements (int, uint, double, bool, duration,
 * timestamp, string, bytes), `sum` over int, uint, double and duration (the type's zero for an empty
 * list), `indexOf` / `lastIndexOf` for any element type by CEL equality (-1 when absent).
 *
 * Cost (library/cost.go): isSorted, sum, min, max, indexOf, lastIndexOf cost 1 per list element
 * (traversal; for string/bytes elements indexOf/lastIndexOf compare with size-proportional cost);
 * see LIST_COSTS.
 */

import { registerLibrary } from '../environment';
import { celCompare, celEquals } from './compare';
import { celError, checkedInt, DurationClass, DurationValue, UintClass } from './engine';
import type { CostTable } from './cost-table';

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];

function isSorted(list: unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (celCompare(list[i - 1], list[i]) === 1) return false;
  return true;
}

function extreme(name: 'min' | 'max', prefer: number) {
  return (list: unknown[]): unknown => {
    if (list.length === 0) throw celError(`${name} called on empty list`);
    let result = list[0];
    for (let i = 1; i < list.length; i++) if (celCompare(result, list[i]) === prefer) result = list[i];
    return result;
  };
}

const UINT64_MAX = (1n << 64n) - 1n;

function sumOf(kind: string) {
  return (list: unknown[]): unknown => {
    switch (kind) {
      case 'int':
        return list.reduce<bigint>((a, b) => checkedInt(a + (b as bigint)), 0n);
      case 'uint': {
        let acc = 0n;
        for (const v of list) {
          acc += (v as { valueOf(): bigint }).valueOf();
          if (acc > UINT64_MAX) throw celError('unsigned integer overflow');
        }
        return new UintClass(acc);
      }
      case 'double':
        return list.reduce<number>((a, b) => a + (b as number), 0);
      default: {
        let acc: DurationValue = new DurationClass(0n, 0);
        for (const v of list) acc = acc.addDuration(v as DurationValue);
        return acc;
      }
    }
  };
}

function indexOf(list: unknown[], item: unknown): bigint {
  for (let i = 0; i < list.length; i++) if (celEquals(list[i], item)) return BigInt(i);
  return -1n;
}

function lastIndexOf(list: unknown[], item: unknown): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], item)) return BigInt(i);
  return -1n;
}

/** How each function's runtime cost grows (Kubernetes' library/cost.go: one list traversal). */
export const LIST_COSTS: CostTable = {
  'list.isSorted': { kind: 'linear', of: 'receiver', factor: 1, note: 'one traversal; string/bytes elements add their size * 0.1' },
  'list.sum': { kind: 'linear', of: 'receiver', factor: 1 },
  'list.min': { kind: 'linear', of: 'receiver', factor: 1, note: 'string/bytes elements add their size * 0.1' },
  'list.max': { kind: 'linear', of: 'receiver', factor: 1, note: 'string/bytes elements add their size * 0.1' },
  'list.indexOf': { kind: 'linear', of: 'receiver', factor: 1, note: 'string/bytes elements add size(arg0) * 0.1 per element' },
  'list.lastIndexOf': { kind: 'linear', of: 'receiver', factor: 1, note: 'string/bytes elements add size(arg0) * 0.1 per element' },
};

registerLibrary((env) => {
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, isSorted);
    env.registerFunction(`list<${t}>.min(): ${t}`, extreme('min', 1));
    env.registerFunction(`list<${t}>.max(): ${t}`, extreme('max', -1));
  }
  for (const t of ['int', 'uint', 'double', 'google.protobuf.Duration']) env.registerFunction(`list<${t}>.sum(): ${t}`, sumOf(t));
  env.registerFunction('list<A>.indexOf(A): int', indexOf);
  env.registerFunction('list<A>.lastIndexOf(A): int', lastIndexOf);
});
