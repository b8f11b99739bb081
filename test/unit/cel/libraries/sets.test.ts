/**
 * The sets extension (sets.contains, sets.equivalent, sets.intersects) as admission policies use it
 * on label values and allowed lists, with CEL's cross-type numeric equality.
 */

import { table } from './table';

describe('cel library: sets', () => {
  table([
    ['sets.contains([], [])', true],
    ['sets.contains([1], [])', true],
    ['sets.contains([1, 2, 3], [2, 3])', true],
    ['sets.contains([1, 2], [2, 2, 1])', true],
    ['sets.contains([1, 2], [3])', false],
    ['sets.contains([[1], [2, 3]], [[2, 3]])', true],
    ['sets.contains([dyn(1), dyn(2u), dyn(3.0)], [dyn(1.0), dyn(2), dyn(3u)])', true],
    ['sets.equivalent([], [])', true],
    ['sets.equivalent([1], [1, 1])', true],
    ['sets.equivalent([1, 2], [2, 1, 1])', true],
    ['sets.equivalent([1, 2], [1])', false],
    ['sets.equivalent(["a", "b"], ["b", "c"])', false],
    ['sets.intersects([1], [])', false],
    ['sets.intersects([1, 2], [2, 3])', true],
    ['sets.intersects(["a"], ["b"])', false],
    ['sets.intersects(self.allowed, ["prod"])', true],
  ], { self: { allowed: ['dev', 'prod'] } });
});
