/**
 * Kubernetes' lists library as CRD rules and policies use it (`self.replicas.isSorted()`,
 * `self.weights.sum() == 100`): values and errors as kube-apiserver 1.32 gives them.
 */

import { table } from './table';

describe('cel library: lists', () => {
  table([
    ['[1, 2, 3].isSorted()', true],
    ['[3, 1, 2].isSorted()', false],
    ['[1, 1, 2].isSorted()', true],
    ['[].isSorted()', true],
    ['["a", "b", "b"].isSorted()', true],
    ['["b", "a"].isSorted()', false],
    ['[1u, 2u].isSorted()', true],
    ['[1.0, 0.5].isSorted()', false],
    ['[false, true].isSorted()', true],
    ['[b"a", b"b"].isSorted()', true],
    ['[duration("1s"), duration("1m")].isSorted()', true],
    ['[timestamp("2000-01-01T00:00:00Z"), timestamp("1999-01-01T00:00:00Z")].isSorted()', false],
    ['[1, 2, 3].sum()', 6n],
    ['[].sum()', 0n],
    ['[1u, 2u].sum()', { uint: '3' }],
    ['[0.5, 1.25].sum()', 1.75],
    ['[duration("1s"), duration("1m")].sum()', { duration: '61s' }],
    ['[9223372036854775807, 1].sum()', { error: 'integer overflow' }],
    ['[3, 1, 2].min()', 1n],
    ['[3, 1, 2].max()', 3n],
    ['["b", "a", "c"].min()', 'a'],
    ['["b", "a", "c"].max()', 'c'],
    ['[1.5, -2.0].min()', -2],
    ['[true, false].max()', true],
    ['[duration("2s"), duration("1s")].min()', { duration: '1s' }],
    ['[].min()', { error: 'min called on empty list' }],
    ['[].max()', { error: 'max called on empty list' }],
    ['[1, 2, 2, 3].indexOf(2)', 1n],
    ['[1, 2, 2, 3].lastIndexOf(2)', 2n],
    ['[1, 2, 3].indexOf(4)', -1n],
    ['[].lastIndexOf(1)', -1n],
    ['["a", "b"].indexOf("b")', 1n],
    ['[[1], [2]].indexOf([2])', 1n],
    ['[{"a": 1}, {"a": 2}].lastIndexOf({"a": 1})', 0n],
    ['self.weights.sum() == 100', true],
    ['self.weights.max()', 60n],
    ['self.names.isSorted()', false],
    ['"abc".isSorted()', { compileError: /found no matching overload/ }],
  ], { self: { weights: [40, 60], names: ['b', 'a'] } });
});
