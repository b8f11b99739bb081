/**
 * Two-variable comprehensions (Kubernetes 1.32): index/element over lists and key/value over maps,
 * as policies use them to check maps of labels or positions in lists; error absorption as cel-go.
 */

import { table } from './table';

describe('cel library: two-variable comprehensions', () => {
  table([
    ['[1, 2, 3].all(i, v, i > -1 && v > 0)', true],
    ['[1, 2, 3].all(i, v, i == 1 && v == 2)', false],
    ['[1, 2, 3].all(i, v, 6 / (2 - v) == i)', false],
    ['[1, 2, 3].exists(i, v, i == 1 && v == 2)', true],
    ['[1, 2, 3].exists(i, v, i > 2 && v > 3)', false],
    ['[1, 2, 3].exists(i, v, 6 / (2 - v) == i)', { error: 'division by zero' }],
    ['{"key1": 1, "key2": 2}.exists(k, v, k == "key2" && v == 2)', true],
    ['{"key1": 1, "key2": 2}.all(k, v, k.startsWith("key") && v > 0)', true],
    ['[5, 7, 8].existsOne(i, v, v % 5 == i)', true],
    ['[0, 1, 2, 3, 4].existsOne(i, v, v % 2 == i)', false],
    ['[].existsOne(i, v, i == 3 || v == 7)', false],
    ['[2, 4, 6].transformList(i, v, v / 2 + i)', [1n, 3n, 5n]],
    ['[2, 4, 6].transformList(i, v, i != 1 && v != 4, v / 2 + i)', [1n, 5n]],
    ['{"foo": "bar", "baz": "bux"}.transformMap(k, v, k + v)', { foo: 'foobar', baz: 'bazbux' }],
    ['{"foo": "bar", "baz": "bux"}.transformMap(k, v, k != "baz", k + v)', { foo: 'foobar' }],
    ['{"a": "x", "b": "y"}.transformMapEntry(k, v, {v: k})', { x: 'a', y: 'b' }],
    ['{"a": "x", "b": "x"}.transformMapEntry(k, v, {v: k})', { error: 'insert failed: key x already exists' }],
    ['self.labels.all(k, v, k.size() <= 63 && v.size() <= 63)', true],
    ['self.containers.exists(i, c, i > 0 && c.name == "sidecar")', true],
    ['[1, 2].all(x, x > 0)', true],
  ], { self: { labels: { app: 'web' }, containers: [{ name: 'app' }, { name: 'sidecar' }] } });
});
