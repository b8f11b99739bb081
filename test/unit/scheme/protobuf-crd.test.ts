/**
 * Protobuf for CustomResourceDefinition (apiextensions/v1): a CRD with every field, its schema's
 * unions (items as a schema or a list, additionalProperties as a boolean or a schema,
 * dependencies as names or a schema), JSON values (default, enum, example) and the
 * `$ref`/`x-kubernetes-*` names survives JSON -> protobuf -> JSON; and the bytes equal protoc's
 * for Kubernetes' field numbers with Go's zero values written.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../lib/scheme/protobuf/message-codec';

type Obj = Record<string, any>;
const PKG = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const schema: Obj = {
  type: 'object', description: 'root', 'x-kubernetes-preserve-unknown-fields': false,
  required: ['spec'],
  properties: {
    spec: {
      type: 'object', additionalProperties: false, externalDocs: { description: 'd', url: 'https://x' },
      properties: {
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10.5, exclusiveMaximum: true, default: 1, multipleOf: 1 },
        mode: { type: 'string', enum: ['a', 'b', null], pattern: '^[ab]$', minLength: 1, maxLength: 3, example: 'a', nullable: true },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: true },
        ports: {
          type: 'array', minItems: 0, maxItems: 4,
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
          'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 0, maxProperties: 8 },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        ruled: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', message: 'm', reason: 'FieldValueInvalid', fieldPath: '.x', optionalOldSelf: false }] },
      },
      dependencies: { a: ['b', 'c'], d: { required: ['e'] } },
      not: { required: ['forbidden'] }, allOf: [{ required: ['replicas'] }], oneOf: [{ required: ['mode'] }],
    },
  },
  definitions: { x: { type: 'string' } }, patternProperties: { '^y': { type: 'string' } },
  $ref: '#/definitions/x', $schema: 'http://json-schema.org/draft-04/schema#', id: 'root-id', title: 'T', format: 'f',
};

const crd: Obj = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: {
    group: 'stable.example.com',
    names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1', served: false, storage: true, deprecated: true, deprecationWarning: 'old',
        schema: { openAPIV3Schema: schema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', format: 'int32', description: 'r', priority: 1, jsonPath: '.spec.replicas' }],
        selectableFields: [{ jsonPath: '.spec.mode' }],
      },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert', port: 8443 }, caBundle: 'Y2E=' }, conversionReviewVersions: ['v1', 'v1beta1'] },
    },
  },
  status: {
    conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
    acceptedNames: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
    storedVersions: ['v1'],
  },
};

describe('protobuf for CustomResourceDefinition', () => {
  it('is registered in both flavors, with its list', () => {
    for (const g of ['apiextensions.k8s.io/v1', 'apiextensions.orch.io/v1']) {
      expect(hasProtobuf(g, 'CustomResourceDefinition')).to.equal(true);
      expect(hasProtobuf(g, 'CustomResourceDefinitionList')).to.equal(true);
    }
  });

  it('round-trips every field, schema unions and JSON values included', () => {
    expect(decodeProtobuf(encodeProtobuf(crd))).to.deep.equal(crd);
  });

  it('keeps a url client config and served/storage false', () => {
    const c = structuredClone(crd);
    c.spec.conversion.webhook.clientConfig = { url: 'https://conv.example.com/x' };
    c.spec.versions[1].served = false;
    expect(decodeProtobuf(encodeProtobuf(c))).to.deep.equal(c);
  });

  it('round-trips a v1beta1 CRD with every v1beta1 field (top-level validation, JSONPath, webhookClientConfig, preserveUnknownFields false)', () => {
    const subresources = crd.spec.versions[0].subresources;
    const beta: Obj = {
      ...crd,
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      spec: {
        group: 'stable.example.com', version: 'v1', names: crd.spec.names, scope: 'Namespaced',
        validation: { openAPIV3Schema: schema }, subresources,
        versions: [
          { name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: 'old', additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.a' }], selectableFields: [{ jsonPath: '.a' }] },
          { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } }, subresources },
        ],
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', format: 'int32', description: 'r', priority: 1, JSONPath: '.spec.replicas' }],
        selectableFields: [{ jsonPath: '.spec.mode' }],
        conversion: { strategy: 'Webhook', webhookClientConfig: { url: 'https://conv.example.com/x', caBundle: 'Y2E=' }, conversionReviewVersions: ['v1beta1'] },
        preserveUnknownFields: false,
      },
    };
    expect(hasProtobuf(beta.apiVersion, 'CustomResourceDefinitionList')).to.equal(true);
    expect(decodeProtobuf(encodeProtobuf(beta))).to.deep.equal(beta);
  });

  describe('byte equality with protoc --encode', () => {
    before(requireProtoc);
    const zeros = (fields: string) => `id: "" schema: "" description: "" ${fields} format: "" title: "" exclusiveMaximum: false exclusiveMinimum: false pattern: "" uniqueItems: false nullable: false xKubernetesEmbeddedResource: false xKubernetesIntOrString: false`;

    it('JSONSchemaProps with Go value fields written, a map of properties and a list type', () => {
      const type = `${PKG}.JSONSchemaProps`;
      const leaf = zeros('type: "string"');
      const vector = protocEncode(type, `${zeros('type: "array"').replace('title: ""', `title: "" default { raw: "[\\"a\\"]" }`)
        .replace('uniqueItems: false', `uniqueItems: false required: "x" items { schema { ${leaf} } } properties { key: "p" value { ${leaf} } }`)} xKubernetesListType: "set"`);
      const json = { type: 'array', default: ['a'], required: ['x'], items: { type: 'string' }, properties: { p: { type: 'string' } }, 'x-kubernetes-list-type': 'set' };
      expect(encodeMessage(type, json)).to.deep.equal(vector);
      expect(decodeMessage(type, vector)).to.deep.equal(json);
    });

    it('the unions: additionalProperties false and a schema, items as a list, dependencies as names', () => {
      const orBool = `${PKG}.JSONSchemaPropsOrBool`;
      expect(encodeMessage(orBool, false)).to.deep.equal(protocEncode(orBool, 'allows: false'));
      expect(encodeMessage(orBool, { type: 'string' })).to.deep.equal(protocEncode(orBool, `allows: true schema { ${zeros('type: "string"')} }`));
      const orArray = `${PKG}.JSONSchemaPropsOrArray`;
      expect(encodeMessage(orArray, [{ type: 'string' }])).to.deep.equal(protocEncode(orArray, `jSONSchemas { ${zeros('type: "string"')} }`));
      const orStrings = `${PKG}.JSONSchemaPropsOrStringArray`;
      expect(decodeMessage(orStrings, protocEncode(orStrings, 'property: "a" property: "b"'))).to.deep.equal(['a', 'b']);
    });

    it('a version with served false written explicitly', () => {
      const type = `${PKG}.CustomResourceDefinitionVersion`;
      const vector = protocEncode(type, 'name: "v1" served: false storage: true deprecated: false');
      expect(encodeMessage(type, { name: 'v1', served: false, storage: true })).to.deep.equal(vector);
      expect(decodeMessage(type, vector)).to.deep.equal({ name: 'v1', served: false, storage: true });
    });
  });
});
