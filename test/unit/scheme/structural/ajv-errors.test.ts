import { expect } from 'chai';
import { formatFieldError } from '../../../../lib/meta/field-errors';
import { compileCount, compileValidator } from '../../../../lib/scheme/structural/compile';

const run = (schema: unknown, obj: unknown) => compileValidator(schema)(obj).map(formatFieldError);
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

// Vectors from apiextensions-apiserver pkg/apiserver/validation/validation_test.go.
describe('compiled validator: errors as Kubernetes prints them', () => {
  it('type errors name the JSON type of the value', () => {
    const s = obj({ field: { type: 'object' } });
    expect(run(s, { field: 'foo' })).to.deep.equal(['field: Invalid value: "string": field in body must be of type object: "string"']);
    expect(run(s, { field: 42 })).to.deep.equal(['field: Invalid value: "integer": field in body must be of type object: "integer"']);
    expect(run(s, { field: true })).to.deep.equal(['field: Invalid value: "boolean": field in body must be of type object: "boolean"']);
    expect(run(s, { field: 1.2 })).to.deep.equal(['field: Invalid value: "number": field in body must be of type object: "number"']);
    expect(run(s, { field: [] })).to.deep.equal(['field: Invalid value: "array": field in body must be of type object: "array"']);
    expect(run(s, { field: null })).to.deep.equal(['field: Invalid value: "null": field in body must be of type object: "null"']);
    expect(run(obj({ field: { type: 'object', nullable: true } }), { field: null })).to.deep.equal([]);
  });

  it('int-or-string accepts integers and strings, and reports the anyOf pattern as Kubernetes does', () => {
    const plain = obj({ field: { 'x-kubernetes-int-or-string': true } });
    expect(run(plain, { field: 42 })).to.deep.equal([]);
    expect(run(plain, { field: 'foo' })).to.deep.equal([]);
    expect(run(plain, { field: null })).to.deep.equal(['field: Invalid value: "null": field in body must be of type integer,string: "null"']);
    expect(run(plain, { field: 1.2 })).to.deep.equal(['field: Invalid value: "number": field in body must be of type integer,string: "number"']);
    const withAnyOf = obj({ field: { nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } });
    expect(run(withAnyOf, { field: null })).to.deep.equal([]);
    expect(run(withAnyOf, { field: true })).to.have.members([
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
      'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ]);
  });

  it('required fields, nested and at the top', () => {
    const s = obj({ field: { type: 'object', required: ['nested'], properties: { nested: {} } } }, { required: ['field'] });
    expect(run(s, { test: 'a' })).to.deep.equal(['field: Required value']);
    expect(run(s, { field: {} })).to.deep.equal(['field.nested: Required value']);
  });

  it('enum and type errors together', () => {
    const s = obj({
      field: {
        type: 'object', required: ['nestedint', 'nestedstring'],
        properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
      },
    });
    expect(run(s, { field: {} })).to.have.members(['field.nestedint: Required value', 'field.nestedstring: Required value']);
    expect(run(s, { field: { nestedint: 'x', nestedstring: true } })).to.have.members([
      'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
      'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
      'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
    ]);
  });

  it('maxProperties, maxItems and maxLength', () => {
    expect(run(obj({ fieldX: { type: 'object', maxProperties: 2 } }), { fieldX: { a: true, b: true, c: true } }))
      .to.deep.equal(['fieldX: Too many: 3: must have at most 2 items']);
    expect(run(obj({ fieldX: { type: 'array', maxItems: 2, items: { type: 'string' } } }), { fieldX: ['a', 'b', 'c'] }))
      .to.deep.equal(['fieldX: Too many: 3: must have at most 2 items']);
    expect(run(obj({ fieldX: { type: 'string', maxLength: 2 } }), { fieldX: 'abc' })).to.deep.equal(['fieldX: Too long: may not be more than 2 bytes']);
  });

  it('numeric formats are range-checked', () => {
    const s = obj({ i32: { type: 'integer', format: 'int32' }, f: { type: 'number', format: 'float' }, d: { type: 'number', format: 'double' } });
    expect(run(s, { i32: 2147483647, f: -3.4e38, d: 1e300 })).to.deep.equal([]);
    expect(run(s, { i32: 2147483648 })).to.deep.equal(['<nil>: Invalid value: "": Checked value must be of type integer with format int32 in i32']);
    expect(run(s, { f: 3.5e38 })).to.deep.equal(['<nil>: Invalid value: "": Checked value must be of type number with format float in f']);
    expect(run(obj({ i64: { type: 'integer', format: 'int64' } }), { i64: 1.5 }))
      .to.deep.equal(['i64: Invalid value: "float64": i64 in body must be of type int64: "float64"']);
  });

  it('bounds, lengths, patterns and counts use kube-openapi words', () => {
    const s = obj({
      n: { type: 'integer', minimum: 1, maximum: 10 },
      x: { type: 'number', minimum: 0.5, exclusiveMinimum: true, maximum: 1000000, exclusiveMaximum: true },
      m: { type: 'integer', multipleOf: 3 },
      s: { type: 'string', minLength: 3, pattern: '^[a-z]+$' },
      l: { type: 'array', minItems: 2, items: { type: 'string' } },
      o: { type: 'object', minProperties: 1 },
    }, { required: [] });
    expect(run(s, { n: 0 })).to.deep.equal(['n: Invalid value: 0: n in body should be greater than or equal to 1']);
    expect(run(s, { n: 11 })).to.deep.equal(['n: Invalid value: 11: n in body should be less than or equal to 10']);
    expect(run(s, { x: 0.5 })).to.deep.equal(['x: Invalid value: 0.5: x in body should be greater than 0.5']);
    // An integer value is compared as an integer (Go decodes it as int64); a float bound prints as %v.
    expect(run(s, { x: 1e6 })).to.deep.equal(['x: Invalid value: 1000000: x in body should be less than 1000000']);
    expect(run(s, { x: 2000000.5 })).to.deep.equal(['x: Invalid value: 2000000.5: x in body should be less than 1e+06']);
    expect(run(s, { m: 4 })).to.deep.equal(['m: Invalid value: 4: m in body should be a multiple of 3']);
    expect(run(s, { s: 'AB' })).to.have.members([
      's: Invalid value: "AB": s in body should be at least 3 chars long',
      's: Invalid value: "AB": s in body should match \'^[a-z]+$\'',
    ]);
    expect(run(s, { l: ['a'] })).to.deep.equal(['l: Invalid value: 1: l in body should have at least 2 items']);
    expect(run(s, { o: {} })).to.deep.equal(['o: Invalid value: 0: o in body should have at least 1 properties']);
  });

  it('string formats: Kubernetes formats checked, unknown formats ignored', () => {
    const s = obj({
      t: { type: 'string', format: 'date-time' }, u: { type: 'string', format: 'uuid' }, ip: { type: 'string', format: 'ipv4' },
      b: { type: 'string', format: 'byte' }, z: { type: 'string', format: 'k8s-whatever' }, d: { type: 'string', format: 'date' },
    });
    expect(run(s, { t: '2024-02-29T10:00:00Z', u: '123e4567-e89b-12d3-a456-426614174000', ip: '10.0.0.1', b: 'aGk=', z: '!!', d: '2024-01-31' })).to.deep.equal([]);
    expect(run(s, { t: 'yesterday' })).to.deep.equal(['t: Invalid value: "yesterday": t in body must be of type date-time: "yesterday"']);
    expect(run(s, { u: 'nope' })).to.deep.equal(['u: Invalid value: "nope": u in body must be of type uuid: "nope"']);
    expect(run(s, { ip: '10.0.0.256' })).to.deep.equal(['ip: Invalid value: "10.0.0.256": ip in body must be of type ipv4: "10.0.0.256"']);
    expect(run(s, { b: 'aGk' })).to.have.length(1);
    expect(run(s, { d: '2023-02-29' })).to.have.length(1);
    expect(run(s, { t: 5 })).to.deep.equal(['t: Invalid value: "int64": t in body must be of type date-time: "int64"']);
  });

  it('paths use brackets for list indexes and dots for map keys', () => {
    const s = obj({ spec: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } }, labels: { type: 'object', additionalProperties: { type: 'string' } } } } });
    expect(run(s, { spec: { items: [{ port: 1 }, { port: 'x' }], labels: { 'a.b/c': 1 } } })).to.have.members([
      'spec.items[1].port: Invalid value: "string": spec.items[1].port in body must be of type integer: "string"',
      'spec.labels.a.b/c: Invalid value: "integer": spec.labels.a.b/c in body must be of type string: "integer"',
    ]);
  });

  it('oneOf, not and allOf report their composite messages', () => {
    const s = obj({ f: { type: 'string', oneOf: [{ pattern: '^a' }, { pattern: 'b$' }], not: { pattern: '^x' }, allOf: [{ minLength: 5 }] } });
    expect(run(s, { f: 'ab' })).to.include('<nil>: Invalid value: "": "f" must validate one and only one schema (oneOf). Found 2 valid alternatives');
    expect(run(s, { f: 'xa' })).to.include('<nil>: Invalid value: "": "f" must not validate the schema (not)');
    expect(run(s, { f: 'ac' })).to.include('<nil>: Invalid value: "": "f" must validate all the schemas (allOf). None validated');
  });

  it('compiles a schema once, however many validators are asked for', () => {
    const schema = obj({ unique: { type: 'string', maxLength: 1234567 } });
    const before = compileCount();
    const a = compileValidator(schema);
    const b = compileValidator(structuredClone(schema));
    expect(compileCount() - before).to.equal(1);
    expect(a({ unique: 'x' })).to.deep.equal([]);
    expect(b({ unique: 1 })).to.have.length(1);
    expect(compileCount() - before).to.equal(1);
  });
});
