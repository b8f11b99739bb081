/**
 * CRD validation rules without a server: the runtime errors a user reads when a rule cannot be
 * evaluated (missing key, division by zero, int-or-string overloads), messageExpression and its
 * fallbacks, the shared cost budget, transition rules on list-map items, and ratcheting of
 * schema errors (unchanged values pass, list-map items correlate by key, atomic lists by the
 * whole list, Required by the parent). Plus the cost message's factor as Kubernetes prints it.
 */
import { expect } from 'chai';
import { toStructural } from '../../../../lib/scheme/structural/structural';
import { validateRules } from '../../../../lib/apiextensions/cel/evaluate-rules';
import { ratchetSchemaErrors } from '../../../../lib/apiextensions/cel/correlation';
import { costErrorMessage, validateCrdRules } from '../../../../lib/registry/apiextensions/custom-resource-definitions/cel-rules-validation';
import { FieldError, fieldErrors } from '../../../../lib/meta/field-errors';

type Obj = Record<string, any>;
const lines = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.message}`);
const specWith = (rules: Obj[], properties: Obj): Obj => ({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': rules, properties } } });

describe('CRD validation rules: evaluation', () => {
  it('reports evaluation errors with the rule (or its message) as kube-apiserver words them', () => {
    const s = toStructural(specWith([{ rule: "self.m['missing'] > 1" }, { rule: '1 / self.zero == 1', message: 'must divide' }, { rule: 'self.io > 1' }],
      { zero: { type: 'integer' }, io: { 'x-kubernetes-int-or-string': true }, m: { type: 'object', additionalProperties: { type: 'integer' } } }));
    const got = lines(validateRules(s, { spec: { zero: 0, io: 'text', m: {} } }, undefined).errors);
    expect(got.slice(0, 2)).to.deep.equal([
      'spec: Invalid value: "object": no such key: missing evaluating rule: self.m[\'missing\'] > 1',
      'spec: Invalid value: "object": division by zero evaluating rule: must divide',
    ]);
    // The overload's own words are the engine's; the frame around them is Kubernetes'.
    expect(got[2]).to.match(/^spec: Invalid value: "object": 'no such overload[^']*': call arguments did not match a supported operator, function or macro signature for rule: self\.io > 1$/);
  });

  it('uses messageExpression, and the message (or the default) when it fails, is blank or has line breaks', () => {
    const rules = [
      { rule: "self.x == 'y'", messageExpression: "'x is ' + self.x" },
      { rule: "self.x == 'y'", message: 'fallback', messageExpression: 'self.nope' },
      { rule: "self.x == 'y'", messageExpression: "'   '" },
      { rule: "self.x == 'y'", messageExpression: "'two\\nlines'" },
    ];
    const s = toStructural(specWith(rules, { x: { type: 'string' } }));
    expect(lines(validateRules(s, { spec: { x: 'z' } }, undefined).errors)).to.deep.equal([
      'spec: Invalid value: "object": x is z',
      'spec: Invalid value: "object": fallback',
      'spec: Invalid value: "object": failed rule: self.x == \'y\'',
      'spec: Invalid value: "object": failed rule: self.x == \'y\'',
    ]);
  });

  it('stops with Kubernetes\' message when the call\'s cost budget is spent', () => {
    const s = toStructural(specWith([{ rule: 'false' }], {}));
    expect(lines(validateRules(s, { spec: {} }, undefined, 0).errors)).to.deep.equal([
      'spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  it('names the root "<nil>", and runs nothing over absent or null values', () => {
    const s = toStructural({ type: 'object', 'x-kubernetes-validations': [{ rule: "self.metadata.name != 'x'", message: 'reserved' }],
      properties: { spec: { type: 'object', nullable: true, 'x-kubernetes-validations': [{ rule: 'false' }] } } });
    expect(lines(validateRules(s, { metadata: { name: 'x' }, spec: null }, undefined).errors)).to.deep.equal(['<nil>: Invalid value: "object": reserved']);
  });

  it('correlates list-map items by key for transition rules, and skips items that are new', () => {
    const s = toStructural(specWith([], {
      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'Value is immutable' }] } },
    }));
    const old = { spec: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] } };
    const now = { spec: { ports: [{ name: 'c', port: 9 }, { name: 'b', port: 2 }, { name: 'a', port: 3 }] } };
    expect(lines(validateRules(s, now, old).errors)).to.deep.equal(['spec.ports[2]: Invalid value: "object": Value is immutable']);
    expect(validateRules(s, now, undefined).errors).to.deep.equal([]);
  });

  it('ratchets a failing rule on an unchanged value into a warning; a changed value fails', () => {
    const s = toStructural(specWith([], { a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 10' }] }, b: { type: 'integer' } }));
    const res = validateRules(s, { spec: { a: 50, b: 2 } }, { spec: { a: 50, b: 1 } });
    expect(res.errors).to.deep.equal([]);
    expect(res.warnings).to.deep.equal(['spec.a: Invalid value: "integer": failed rule: self < 10']);
    expect(lines(validateRules(s, { spec: { a: 51, b: 2 } }, { spec: { a: 50, b: 1 } }).errors)).to.deep.equal(['spec.a: Invalid value: "integer": failed rule: self < 10']);
  });
});

describe('CRD validation ratcheting of schema errors', () => {
  const s = toStructural({ type: 'object', properties: { spec: { type: 'object', properties: {
    items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name', 'v'], properties: { name: { type: 'string' }, v: { type: 'integer', maximum: 5 } } } },
    tags: { type: 'array', items: { type: 'string', maxLength: 3 } },
  } } } });
  const tooBig = (field: string, v: number) => fieldErrors.invalid(field, v, 'too big');

  it('drops errors at values equal to the old ones (list-map items found by key) and keeps the others', () => {
    const old = { spec: { items: [{ name: 'a', v: 9 }, { name: 'b', v: 1 }] } };
    const now = { spec: { items: [{ name: 'b', v: 1 }, { name: 'a', v: 9 }, { name: 'c', v: 8 }] } };
    expect(ratchetSchemaErrors([tooBig('spec.items[1].v', 9), tooBig('spec.items[2].v', 8)], now, old, s).map((e) => e.field)).to.deep.equal(['spec.items[2].v']);
  });

  it('ratchets atomic list items only when the whole list is unchanged, and Required by its parent', () => {
    const long = fieldErrors.invalid('spec.tags[0]', 'long', 'too long');
    expect(ratchetSchemaErrors([long], { spec: { tags: ['long'] } }, { spec: { tags: ['long'] } }, s)).to.deep.equal([]);
    expect(ratchetSchemaErrors([long], { spec: { tags: ['long', 'x'] } }, { spec: { tags: ['long'] } }, s)).to.deep.equal([long]);
    const required = fieldErrors.required('spec.items[0].v');
    expect(ratchetSchemaErrors([required], { spec: { items: [{ name: 'a' }] } }, { spec: { items: [{ name: 'a' }] } }, s)).to.deep.equal([]);
    const changed = { spec: { items: [{ name: 'a', extra: 1 }] } };
    expect(ratchetSchemaErrors([required], changed, { spec: { items: [{ name: 'a' }] } }, s)).to.deep.equal([required]);
  });
});

describe('CRD validation rules: cost message', () => {
  it('prints the factor as Kubernetes does (%f below 1.5x, one decimal above, "more than 100x")', () => {
    expect(costErrorMessage('estimated rule cost', 12, 10)).to.equal('estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
    expect(costErrorMessage('estimated rule cost', 25, 10)).to.match(/by factor of 2\.5x \(/);
    expect(costErrorMessage('estimated rule cost', 2000, 10)).to.match(/by factor of more than 100x \(/);
  });
});

describe('CRD validation rules: checks where the CRD is written', () => {
  const P = 'spec.validation.openAPIV3Schema';
  const check = (schema: Obj) => validateCrdRules(schema, P, true).map((e) => `${e.field}: ${e.message}`);

  it('wants a message for a rule on several lines, and no oldSelf under an atomic map', () => {
    expect(check(specWith([{ rule: 'self.a > 0 &&\n self.a < 9' }], { a: { type: 'integer' } }))).to.deep.equal([
      `${P}.properties[spec].x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`,
    ]);
    const atomic = { type: 'object', properties: { m: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } } };
    expect(check(atomic)).to.deep.equal([
      `${P}.properties[m].properties[a].x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[m]`,
    ]);
  });

  it('accepts transition rules on list-map items and map values, and a valid fieldPath into a map', () => {
    const ok = specWith([{ rule: 'true', fieldPath: ".labels['a.b']" }], {
      // Bounded as Kubernetes' cost estimate needs (unbounded, both rules exceed the limit there too).
      labels: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 256, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
      items: { type: 'array', maxItems: 64, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 63 } }, 'x-kubernetes-validations': [{ rule: 'self.k == oldSelf.k' }] } },
    });
    expect(check(ok)).to.deep.equal([]);
  });
});
