import { expect } from 'chai';
import { parse } from 'yaml';
import { formatFieldError } from '../../../../lib/meta/field-errors';
import { validateCrdSchema } from '../../../../lib/scheme/structural/validate-crd-schema';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const check = (yaml: string, statusEnabled = false) => validateCrdSchema(parse(yaml), P, { statusEnabled }).map(formatFieldError);

// Vectors from apiextensions-apiserver test/integration/validation_test.go (TestNonStructuralSchemaConditionUpdate).
describe('validateCrdSchema: structural rules (Kubernetes vectors)', () => {
  it('accepts a plain object schema and embedded resources with properties or preserve-unknown-fields', () => {
    expect(check('type: object')).to.deep.equal([]);
    expect(check('type: object\nx-kubernetes-embedded-resource: true\nx-kubernetes-preserve-unknown-fields: true')).to.deep.equal([]);
    expect(check('type: object\nx-kubernetes-embedded-resource: true\nproperties:\n apiVersion: {type: string}\n kind: {type: string}\n metadata: {type: object}')).to.deep.equal([]);
  });

  it('refuses an empty or non-object root type', () => {
    expect(check('type: ""')).to.deep.equal([`${P}.type: Required value: must not be empty at the root`]);
    expect(check('type: integer')).to.include(`${P}.type: Invalid value: "integer": must be object at the root`);
  });

  it('refuses generic keywords inside value validations', () => {
    const got = check(`
type: object
properties:
 foo: {type: string}
not: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
allOf:
- properties:
   foo: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
anyOf:
- items: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
`);
    expect(got).to.include.members([
      `${P}.anyOf[0].items.type: Forbidden: must be empty to be structural`,
      `${P}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural`,
      `${P}.anyOf[0].items.title: Forbidden: must be empty to be structural`,
      `${P}.anyOf[0].items.description: Forbidden: must be empty to be structural`,
      `${P}.anyOf[0].items.nullable: Forbidden: must be false to be structural`,
      `${P}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      `${P}.not.nullable: Forbidden: must be false to be structural`,
      `${P}.items: Required value: because it is defined in ${P}.anyOf[0].items`,
    ]);
    expect(got.some((e) => e.startsWith(`${P}.not.default`))).to.equal(false);
  });

  it('reports missing types at every level, sorted as Kubernetes sorts them', () => {
    const got = check(`
properties:
 foo:
   properties:
     a: {}
 bar:
   items:
     additionalProperties:
       properties:
         a: {}
       items: {}
`);
    expect(got).to.include.members([
      `${P}.properties[foo].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[bar].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for specified array items`,
      `${P}.type: Required value: must not be empty at the root`,
    ]);
    expect(got).to.deep.equal([...got].sort());
  });

  it('refuses additionalProperties at the root and arrays without items', () => {
    expect(check('type: object\nadditionalProperties: false')).to.include(`${P}.additionalProperties: Forbidden: must not be used at the root`);
    expect(check('type: object\nproperties:\n slice: {type: array}')).to.deep.equal([`${P}.properties[slice].items: Required value: must be specified`]);
  });

  it('requires everything a value validation mentions to be specified (completeness)', () => {
    const got = check(`
type: object
properties:
 d: {type: array}
not:
 properties:
   a: {}
   d:
     items: {}
allOf:
- properties:
   e: {}
`);
    expect(got).to.include.members([
      `${P}.properties[a]: Required value: because it is defined in ${P}.not.properties[a]`,
      `${P}.properties[d].items: Required value: because it is defined in ${P}.not.properties[d].items`,
      `${P}.properties[e]: Required value: because it is defined in ${P}.allOf[0].properties[e]`,
    ]);
  });

  it('restricts the root metadata to name and generateName', () => {
    expect(check('type: object\nproperties:\n metadata:\n   minimum: 42.0')).to.include.members([
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
    ]);
    expect(check('type: object\nproperties:\n metadata:\n   type: object\n   properties:\n     name: {type: string, pattern: "^[a-z]+$"}\n     generateName: {type: string}')).to.deep.equal([]);
    expect(check('type: object\nproperties:\n metadata:\n   type: object\nallOf:\n- properties:\n   metadata: {}'))
      .to.include(`${P}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`);
  });

  it('refuses patterns the validator cannot compile', () => {
    const got = check('type: object\nproperties:\n foo: {type: string, pattern: "+"}');
    expect(got).to.have.length(1);
    expect(got[0]).to.match(/^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[foo\]\.pattern: Invalid value: "\+": must be a valid regular expression, but isn't: /);
  });

  it('checks int-or-string and embedded-resource combinations', () => {
    expect(check('type: object\nproperties:\n x: {x-kubernetes-int-or-string: true, x-kubernetes-preserve-unknown-fields: true}'))
      .to.include(`${P}.properties[x].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`);
    expect(check('type: object\nproperties:\n x: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}')).to.deep.equal([]);
    expect(check('type: object\nproperties:\n e: {type: string, x-kubernetes-embedded-resource: true}'))
      .to.include(`${P}.properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`);
    expect(check('type: object\nproperties:\n e: {type: object, x-kubernetes-embedded-resource: true}'))
      .to.include(`${P}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`);
  });
});

describe('validateCrdSchema: OpenAPI keyword checks', () => {
  it('refuses keywords Kubernetes does not support', () => {
    const got = check('type: object\nproperties:\n a: {type: string, $ref: "#/x"}\n b: {type: "null"}\n c: {type: array, uniqueItems: true, items: {type: string}}');
    expect(got).to.include.members([
      `${P}.properties[a].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[b].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[b].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${P}.properties[c].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
  });

  it('refuses additionalProperties next to properties unless it is true', () => {
    expect(check('type: object\nproperties:\n m: {type: object, properties: {a: {type: string}}, additionalProperties: false}'))
      .to.include(`${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`);
    expect(check('type: object\nproperties:\n m: {type: object, properties: {a: {type: string}}, additionalProperties: true}')).to.deep.equal([]);
  });

  it('checks x-kubernetes-preserve-unknown-fields, map and list types', () => {
    expect(check('type: object\nx-kubernetes-preserve-unknown-fields: false'))
      .to.include(`${P}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`);
    expect(check('type: object\nproperties:\n m: {type: string, x-kubernetes-map-type: atomic}'))
      .to.include(`${P}.properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`);
    expect(check('type: object\nproperties:\n l: {type: array, items: {type: string}, x-kubernetes-list-type: bag}'))
      .to.include(`${P}.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`);
    expect(check('type: object\nproperties:\n l: {type: array, items: {type: object, properties: {a: {type: string}}}, x-kubernetes-list-type: set}'))
      .to.include(`${P}.properties[l].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`);
  });

  it('checks list-map keys', () => {
    const got = check(`
type: object
properties:
 l:
   type: array
   x-kubernetes-list-type: map
   x-kubernetes-list-map-keys: [name, sub, missing]
   items:
     type: object
     properties:
       name: {type: string, nullable: true}
       sub: {type: object}
`);
    expect(got).to.include.members([
      `${P}.properties[l].items.properties[sub].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${P}.properties[l].x-kubernetes-list-map-keys: Invalid value: ["name","sub","missing"]: entries must all be names of item properties`,
      `${P}.properties[l].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[l].items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
    ]);
    expect(check('type: object\nproperties:\n l: {type: array, items: {type: string}, x-kubernetes-list-map-keys: [a]}'))
      .to.include(`${P}.properties[l].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`);
  });

  it('leaves CEL rules to the CRD validation (no refusal by the schema engine), but not inside value validations', () => {
    expect(check('type: object\nproperties:\n spec:\n   type: object\n   x-kubernetes-validations: [{rule: "self.a > 0"}]')).to.deep.equal([]);
    expect(check('type: object\nproperties:\n spec:\n   type: object\n   allOf: [{x-kubernetes-validations: [{rule: "true"}]}]')).to.deep.equal([
      `${P}.properties[spec].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ]);
  });

  it('applies the status-subresource root rules and refuses nullable at the root', () => {
    expect(check('type: object\nanyOf: [{required: [spec]}]\nproperties:\n spec: {type: object}', true)[0])
      .to.match(/^spec\.versions\[0\]\.schema\.openAPIV3Schema: Invalid value: .*: only \[Description Type Format .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/);
    expect(check('type: object\nnullable: true')).to.include(`${P}.nullable: Forbidden: nullable cannot be true at the root`);
    expect(check('type: object\nrequired: [spec]\nproperties:\n spec: {type: object}', true)).to.deep.equal([]);
  });

  it('refuses defaults in top-level metadata', () => {
    expect(check('type: object\nproperties:\n metadata: {type: object, default: {name: x}}'))
      .to.include(`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`);
  });

  it('reports the structural build error only when nothing else is wrong', () => {
    expect(check('type: object\nproperties:\n a: {type: array, items: [{type: string}]}')).to.include(
      `${P}.properties[a].items: Forbidden: items must be a schema object and not an array`,
    );
    expect(check('type: object\n$schema: x')).to.deep.equal([`${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`]);
  });
});

describe('validateCrdSchema: defaults', () => {
  it('requires defaults to validate and to be pruned (Kubernetes vectors)', () => {
    const got = check(`
type: object
properties:
 a: {type: number, default: "foo"}
 c:
   type: object
   properties: {foo: {type: string}}
   default: {foo: 42}
 e:
   type: object
   x-kubernetes-preserve-unknown-fields: true
   properties:
     nestedProperties:
       type: object
       properties: {foo: {type: string}}
       default: {foo: abc, bar: 42}
 f: {type: string, default: abc, minLength: 2}
`);
    expect(got).to.include.members([
      `${P}.properties[a].default: Invalid value: "string":  in body must be of type number: "string"`,
      `${P}.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"`,
      `${P}.properties[e].properties[nestedProperties].default: Invalid value: {"foo":"abc","bar":42}: must not have unknown fields`,
    ]);
    expect(got).to.have.length(3);
  });

  it('validates embedded resources in defaults', () => {
    const got = check(`
type: object
properties:
 emb:
   type: object
   x-kubernetes-embedded-resource: true
   x-kubernetes-preserve-unknown-fields: true
   default: {apiVersion: v1, kind: "1bad", metadata: {name: x}}
`);
    expect(got).to.have.length(1);
    expect(got[0]).to.match(/^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[emb\]\.default\.kind: Invalid value: "1bad": may have mixed case, but should otherwise match: a DNS-1035 label/);
  });
});
