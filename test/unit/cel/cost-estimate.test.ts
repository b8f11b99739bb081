/**
 * The static cost estimate against Kubernetes' own numbers (apiextensions-apiserver
 * schema/cel/compilation_test.go TestCostEstimation): the same rule on the same schema must cost what
 * kube-apiserver computes, with and without maxItems/maxLength/maxProperties, so that a CRD refused
 * or accepted there for its cost is refused or accepted here. Also maxCardinality, which multiplies
 * a rule's cost by how often its node can occur.
 */

import { expect } from 'chai';
import { celEnvironment, compile, declarationForSchema, maxCardinality, STATIC_ESTIMATED_COST_LIMIT, type CelSchema } from '../../../lib/cel';

function primitive(type: string): CelSchema {
  switch (type) {
    case 'int-or-string': return { 'x-kubernetes-int-or-string': true };
    case 'duration': case 'date': case 'date-time': return { type: 'string', format: type };
    default: return { type };
  }
}
const arrayOf = (items: CelSchema, max?: number): CelSchema => ({ type: 'array', items, ...(max === undefined ? {} : { maxItems: max }) });
const mapOf = (v: CelSchema, max?: number): CelSchema => ({ type: 'object', additionalProperties: v, ...(max === undefined ? {} : { maxProperties: max }) });
const str = (max?: number): CelSchema => ({ type: 'string', ...(max === undefined ? {} : { maxLength: max }) });

function estimate(schema: CelSchema, rule: string): number {
  const d = declarationForSchema(schema, 'self');
  const env = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: d.type, schema }], types: d.types });
  try {
    // The regex library's find (lib/cel/libraries) may not be there yet; its cost is this module's.
    env.engine.registerFunction('string.find(string): string', () => '');
  } catch {
    // already registered by the library
  }
  const c = compile(env, rule, { resultTypes: ['bool'] });
  if (!c.ok) throw new Error(c.error);
  return c.program.estimatedCost.max;
}

describe('cel: static cost estimate (Kubernetes\' numbers)', () => {
  // [name, schema generator (max or unbounded), rule, unbounded cost, max, cost with max]
  const table: Array<[string, (max?: number) => CelSchema, string, number, number, number]> = [
    ['number array with all', (m) => arrayOf(primitive('number'), m), 'self.all(x, true)', 4718591, 10, 32],
    ['string array with all', (m) => arrayOf(primitive('string'), m), 'self.all(x, true)', 3145727, 20, 62],
    ['boolean array with all', (m) => arrayOf(primitive('boolean'), m), 'self.all(x, true)', 1887437, 5, 17],
    ['array of number arrays with all', (m) => arrayOf(arrayOf(primitive('number')), m), 'self.all(x, true)', 3145727, 100, 302],
    ['map of numbers with all', (m) => mapOf(primitive('number'), m), 'self.all(x, true)', 1348169, 10, 32],
    ['map of numbers with has', (m) => mapOf(primitive('number'), m), 'has(self.x)', 0, 100, 0],
    ['map of strings with all', (m) => mapOf(primitive('string'), m), 'self.all(x, true)', 1179647, 3, 11],
    ['map of booleans with all', (m) => mapOf(primitive('boolean'), m), 'self.all(x, true)', 943718, 100, 302],
    ['string with contains', (m) => str(m), "self.contains('test')", 314574, 10, 5],
    ['string with startsWith', (m) => str(m), "self.startsWith('test')", 2, 15, 2],
    ['string with endsWith', (m) => str(m), "self.endsWith('test')", 2, 30, 2],
    ['concat string', (m) => str(m), 'size(self + "hello") > size("hello")', 314578, 4, 7],
    ['index of array with numbers', (m) => arrayOf(primitive('number'), m), 'self[1] == 0.0', 2, 5000, 2],
    ['index of array with strings', (m) => arrayOf(str(), m), 'self[1] == self[1]', 314577, 8, 314577],
    ['O(n^2) loop with numbers', (m) => arrayOf(primitive('number'), m), 'self.all(x, self.all(y, true))', -1, 10, 352],
    ['O(n^3) loop with numbers', (m) => arrayOf(primitive('number'), m), 'self.all(x, self.all(y, self.all(z, true)))', -1, 10, 3552],
    ['regex matches simple', (m) => str(m), 'self.matches("x")', 314574, 50, 22],
    ['regex matches empty string', (m) => str(m), '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    ['regex matches empty regex', (m) => str(m), 'self.matches("")', 1, 100, 1],
    ['set array maxLength to zero', (m) => arrayOf(primitive('number'), m), 'self[3] == 0.0', 2, 0, 2],
    ['set map maxLength to zero', (m) => mapOf(primitive('number'), m), 'self["x"] == 0.0', 2, 0, 2],
    ['set string maxLength to zero', (m) => str(m), 'self == "x"', 2, 0, 1],
    ['set maxLength greater than estimated maxLength', (m) => arrayOf(primitive('number'), m), 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
    ['int-or-string array with all', (m) => arrayOf(primitive('int-or-string'), m), 'self.all(x, true)', 4718591, 10, 32],
    ['index of array with int-or-strings', (m) => arrayOf(primitive('int-or-string'), m), 'self[0] == 5', 3, 10, 3],
    ['index of array with booleans', (m) => arrayOf(primitive('boolean'), m), 'self[0] == false', 2, 25, 2],
    ['index of array of array of numbers', (m) => arrayOf(arrayOf(primitive('number')), m), 'self[0][0] == -1.0', 3, 51, 3],
    ['index of array of number maps', (m) => arrayOf(mapOf(primitive('number')), m), 'self[0].x > 2.0', 4, 3000, 4],
    ['duration array with all', (m) => arrayOf(primitive('duration'), m), 'self.all(x, true)', 2359295, 5, 17],
    ['index of duration array', (m) => arrayOf(primitive('duration'), m), 'self[0].getHours() == 2', 4, 525, 4],
    ['date array with all', (m) => arrayOf(primitive('date'), m), 'self.all(x, true)', 725936, 15, 47],
    ['date-time array with all', (m) => arrayOf(primitive('date-time'), m), 'self.all(x, true)', 428963, 25, 77],
    ['index of date-time array', (m) => arrayOf(primitive('date-time'), m), 'self[2].getMinutes() == 45', 4, 99, 4],
    ['map of int-or-strings with all', (m) => mapOf(primitive('int-or-string'), m), 'self.all(x, true)', 1348169, 15, 47],
    ['map of durations with all', (m) => mapOf(primitive('duration'), m), 'self.all(x, true)', 1048577, 5, 17],
    ['map of dates with all', (m) => mapOf(primitive('date'), m), 'self.all(x, true)', 524288, 10, 32],
    ['map of date-times with all', (m) => mapOf(primitive('date-time'), m), 'self.all(x, true)', 349526, 25, 77],
    ['map of number arrays with all', (m) => mapOf(arrayOf(primitive('number')), m), 'self.all(x, true)', 1179647, 25, 77],
    ['extended library regex find', (m) => str(m), "self.find('[0-9]+') == ''", 629147, 10, 11],
  ];
  for (const [name, gen, rule, unbounded, max, bounded] of table) {
    it(`${name}: ${rule}`, () => {
      if (unbounded >= 0) expect(estimate(gen(), rule), 'without max').to.equal(unbounded);
      else expect(estimate(gen(), rule), 'without max').to.be.greaterThan(STATIC_ESTIMATED_COST_LIMIT);
      expect(estimate(gen(max), rule), `with max ${max}`).to.equal(bounded);
    });
  }

  it('fills estimatedCost on every program, also without a schema', () => {
    const env = celEnvironment({ purpose: 'admission-policy', variables: [{ name: 'object', type: 'dyn' }] });
    const c = compile(env, 'object.spec.replicas > 1');
    expect(c.ok && c.program.estimatedCost).to.deep.equal({ min: 4, max: 4 });
  });

  it('maxCardinality multiplies the bounds of the lists and maps above a node, unbounded when one has none', () => {
    const inner = arrayOf(primitive('string'), 5);
    expect(maxCardinality([])).to.equal(1);
    expect(maxCardinality([arrayOf(inner, 10), inner])).to.equal(50);
    expect(maxCardinality([mapOf(inner, 3), inner, { type: 'object', properties: {} }])).to.equal(15);
    expect(maxCardinality([arrayOf(inner), inner])).to.equal(undefined);
  });
});
