/**
 * The `/openapi/v2` document as gnostic's openapi.v2.Document (lib/api/openapi/v2-protobuf.ts):
 * the served document (built-in kinds, both flavors, and merged with an extension server's) is
 * converted with nothing left out, decoded by protoc, and its bytes are those protoc encodes again
 * from its own decoding (field order, proto3 zero values); every path, definition and extension
 * survives. Corner cases of gnostic's mapping are checked against textproto vectors encoded by protoc.
 * Any's YAML text is the yaml package's (yaml.v3 indents a top-level block scalar; both read the same).
 */
import { expect } from 'chai';
import { buildOpenApiV2 } from '../../../lib/api/openapi/v2';
import { mergeV2Documents } from '../../../lib/api/openapi/remote';
import { decodeOpenApiV2Protobuf, openApiV2ToProtobuf } from '../../../lib/api/openapi/v2-protobuf';
import { flavors } from '../../../lib/naming';
import { builtinResources } from '../../../lib/registry/builtin';
import { protocDecodeOpenApiV2, protocEncodeOpenApiV2, requireProtoc } from '../../helpers/protoc';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const info = { title: 'Kubernetes', version: 'v1.32.0-test' };

/** Objects whose keys are names (a property may be called `x-kubernetes-...`), not fields. */
const NAMED = new Set(['properties', 'definitions', 'paths', 'responses', 'parameters', 'securityDefinitions', 'headers', 'scopes']);

/** Every vendor extension (`x-*` field) of `doc` with its JSON path. */
function extensions(doc: unknown, at = '', names = false): string[] {
  if (!doc || typeof doc !== 'object') return [];
  if (Array.isArray(doc)) return doc.flatMap((v, i) => extensions(v, `${at}/${i}`));
  return Object.entries(doc as Json).flatMap(([k, v]) => (!names && k.startsWith('x-') ? [`${at}/${k}`] : extensions(v, `${at}/${k}`, !names && NAMED.has(k) && !Array.isArray(v))));
}

/** The same over the decoded message: `vendor_extension` names, with JSON-like paths. */
function decodedExtensionCount(msg: unknown): number {
  if (!msg || typeof msg !== 'object') return 0;
  if (Array.isArray(msg)) return msg.reduce((n: number, v) => n + decodedExtensionCount(v), 0);
  return Object.entries(msg as Json).reduce((n, [k, v]) => n + (k === 'vendor_extension' ? (v as unknown[]).length : 0) + decodedExtensionCount(v), 0);
}

/** A small extension server's v2 document (sample-apiserver's shape). */
const remote: Json = {
  swagger: '2.0',
  info: { title: 'Api', version: 'v0' },
  paths: {
    '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders': {
      get: {
        description: 'list or watch objects of kind Flunder', consumes: ['*/*'], produces: ['application/json'], schemes: ['https'], tags: ['wardleExample_v1alpha1'],
        operationId: 'listWardleExampleV1alpha1NamespacedFlunder',
        responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FlunderList' } }, 401: { description: 'Unauthorized' } },
        'x-kubernetes-action': 'list',
        'x-kubernetes-group-version-kind': { group: 'wardle.example.com', kind: 'Flunder', version: 'v1alpha1' },
      },
      parameters: [{ uniqueItems: true, type: 'string', description: 'object name and auth scope', name: 'namespace', in: 'path', required: true }],
    },
  },
  definitions: {
    'io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder': {
      type: 'object',
      properties: { spec: { $ref: '#/definitions/io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FlunderSpec' } },
      'x-kubernetes-group-version-kind': [{ group: 'wardle.example.com', kind: 'Flunder', version: 'v1alpha1' }],
    },
    'io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FlunderSpec': {
      type: 'object', properties: { reference: { description: 'A name of another flunder', type: 'string' }, referenceType: { type: 'string' } },
    },
  },
};

describe('OpenAPI v2 as gnostic\'s protobuf', () => {
  before(function () {
    this.timeout(30_000);
    requireProtoc();
  });

  for (const [name, build] of [
    ['the kubernetes flavor\'s document', () => buildOpenApiV2(builtinResources(flavors.kubernetes), flavors.kubernetes, info)],
    ['the orch flavor\'s document', () => buildOpenApiV2(builtinResources(flavors.orch), flavors.orch, info)],
    ['the document merged with an extension server\'s', () => mergeV2Documents(buildOpenApiV2(builtinResources(flavors.kubernetes), flavors.kubernetes, info), [remote])],
  ] as const) {
    it(`${name}: nothing left out, protoc decodes it and encodes the same bytes, every path, definition and extension survives`, function () {
      this.timeout(60_000);
      const doc = build() as Json;
      const { bytes, dropped } = openApiV2ToProtobuf(doc);
      expect(dropped, 'keys gnostic would refuse').to.deep.equal([]);
      const text = protocDecodeOpenApiV2(bytes);
      expect(protocEncodeOpenApiV2('Document', text).equals(Buffer.from(bytes)), 'protoc re-encodes the same bytes').to.equal(true);
      const decoded = decodeOpenApiV2Protobuf(bytes) as Json;
      expect(decoded.swagger).to.equal('2.0');
      expect(decoded.info).to.deep.equal({ title: doc.info.title, version: doc.info.version });
      expect(decoded.paths.path.map((p: Json) => p.name)).to.deep.equal(Object.keys(doc.paths));
      expect(decoded.definitions.additional_properties.map((d: Json) => d.name)).to.deep.equal(Object.keys(doc.definitions));
      expect(decodedExtensionCount(decoded)).to.equal(extensions(doc).length);
      // Each path's operations and their responses.
      for (const item of decoded.paths.path as Json[]) {
        const json = doc.paths[item.name];
        for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) expect(!!item.value[m], `${item.name} ${m}`).to.equal(!!json[m]);
      }
    });
  }

  it('the merged document carries the extension server\'s paths, definitions and GVKs', () => {
    const doc = mergeV2Documents(buildOpenApiV2(builtinResources(flavors.kubernetes), flavors.kubernetes, info), [remote]);
    const decoded = decodeOpenApiV2Protobuf(openApiV2ToProtobuf(doc).bytes) as Json;
    const flunder = decoded.definitions.additional_properties.find((d: Json) => d.name === 'io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder');
    expect(flunder.value.vendor_extension).to.deep.equal([{
      name: 'x-kubernetes-group-version-kind', value: { yaml: '- group: wardle.example.com\n  kind: Flunder\n  version: v1alpha1\n' },
    }]);
    expect(flunder.value.properties.additional_properties[0]).to.deep.equal({ name: 'spec', value: { _ref: '#/definitions/io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FlunderSpec' } });
    const list = decoded.paths.path.find((p: Json) => p.name === '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders');
    expect(list.value.parameters).to.deep.equal([{
      parameter: { non_body_parameter: { path_parameter_sub_schema: { required: true, in: 'path', description: 'object name and auth scope', name: 'namespace', type: 'string', unique_items: true } } },
    }]);
    expect(list.value.get.responses.response_code.map((r: Json) => r.name)).to.deep.equal(['200', '401']);
  });

  it('maps gnostic\'s corner cases as protoc encodes them', () => {
    const doc = {
      swagger: '2.0',
      info: { title: 'T', version: 'v1', description: '', contact: { name: 'c', 'x-c': 1 }, license: { name: 'Apache 2.0', url: 'u' } },
      host: 'h', basePath: '/b', schemes: ['https'], consumes: ['application/json'], produces: ['application/json'],
      paths: {
        'x-paths': true,
        '/p/{name}': {
          get: {
            tags: ['t'], operationId: 'op', deprecated: false,
            parameters: [
              { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/D' } },
              { in: 'query', name: 'q', type: 'integer', uniqueItems: true, maximum: 10, minimum: 0 },
              { in: 'header', name: 'h', type: 'array', items: { type: 'string' }, collectionFormat: 'csv' },
              { in: 'formData', name: 'f', type: 'file' },
              { $ref: '#/parameters/shared' },
            ],
            responses: {
              200: { description: 'OK', schema: { type: 'string' }, headers: { 'X-H': { type: 'string' } } },
              201: { description: 'file', schema: { type: 'file' } },
              default: { $ref: '#/responses/err' },
              'x-r': ['a'],
            },
            security: [{ basic: [] }],
          },
          parameters: [{ in: 'path', name: 'name', required: true, type: 'string' }],
        },
      },
      definitions: {
        D: {
          type: ['object', 'null'], required: ['a'], description: '',
          properties: {
            a: { type: 'string', enum: ['x', 'true', ''], default: 'x', example: 'multi\nline' },
            m: { type: 'object', additionalProperties: { type: 'integer', format: 'int32' } },
            n: { type: 'object', additionalProperties: false, nullable: true },
            l: { type: 'array', items: { $ref: '#/definitions/D' }, maxItems: 3 },
            o: { allOf: [{ $ref: '#/definitions/D' }], default: { k: [1, 2] } },
          },
          'x-kubernetes-group-version-kind': [{ group: '', kind: 'D', version: 'v1' }],
        },
      },
      parameters: { shared: { in: 'query', name: 's', type: 'boolean' } },
      responses: { err: { description: 'Error' } },
      securityDefinitions: {
        basic: { type: 'basic' },
        key: { type: 'apiKey', name: 'authorization', in: 'header' },
        oauth: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'a', tokenUrl: 't', scopes: { read: 'r' } },
        app: { type: 'oauth2', flow: 'application', tokenUrl: 't' },
      },
      security: [{ key: [] }],
      tags: [{ name: 't', externalDocs: { url: 'e' } }],
      'x-doc': { a: null },
    };
    const { bytes, dropped } = openApiV2ToProtobuf(doc);
    expect(dropped).to.deep.equal(['/definitions/D/properties/n/nullable']);
    const vector = protocEncodeOpenApiV2('Document', `
      swagger: "2.0"
      info { title: "T" version: "v1" contact { name: "c" vendor_extension { name: "x-c" value { yaml: "1\\n" } } } license { name: "Apache 2.0" url: "u" } }
      host: "h" base_path: "/b" schemes: "https" consumes: "application/json" produces: "application/json"
      paths {
        vendor_extension { name: "x-paths" value { yaml: "true\\n" } }
        path { name: "/p/{name}" value {
          get {
            tags: "t" operation_id: "op"
            parameters { parameter { body_parameter { name: "body" in: "body" required: true schema { _ref: "#/definitions/D" } } } }
            parameters { parameter { non_body_parameter { query_parameter_sub_schema { in: "query" name: "q" type: "integer" maximum: 10 unique_items: true } } } }
            parameters { parameter { non_body_parameter { header_parameter_sub_schema { in: "header" name: "h" type: "array" items { type: "string" } collection_format: "csv" } } } }
            parameters { parameter { non_body_parameter { form_data_parameter_sub_schema { in: "formData" name: "f" type: "file" } } } }
            parameters { json_reference { _ref: "#/parameters/shared" } }
            responses {
              response_code { name: "200" value { response { description: "OK" schema { schema { type { value: "string" } } } headers { additional_properties { name: "X-H" value { type: "string" } } } } } }
              response_code { name: "201" value { response { description: "file" schema { file_schema { type: "file" } } } } }
              response_code { name: "default" value { json_reference { _ref: "#/responses/err" } } }
              vendor_extension { name: "x-r" value { yaml: "- a\\n" } }
            }
            security { additional_properties { name: "basic" value { } } }
          }
          parameters { parameter { non_body_parameter { path_parameter_sub_schema { required: true in: "path" name: "name" type: "string" } } } }
        } }
      }
      definitions { additional_properties { name: "D" value {
        required: "a"
        type { value: "object" value: "null" }
        properties {
          additional_properties { name: "a" value { default { yaml: "x\\n" } enum { yaml: "x\\n" } enum { yaml: "\\"true\\"\\n" } enum { yaml: "\\"\\"\\n" } type { value: "string" } example { yaml: "|-\\nmulti\\nline\\n" } } }
          additional_properties { name: "m" value { additional_properties { schema { format: "int32" type { value: "integer" } } } type { value: "object" } } }
          additional_properties { name: "n" value { additional_properties { boolean: false } type { value: "object" } } }
          additional_properties { name: "l" value { max_items: 3 type { value: "array" } items { schema { _ref: "#/definitions/D" } } } }
          additional_properties { name: "o" value { default { yaml: "k:\\n    - 1\\n    - 2\\n" } all_of { _ref: "#/definitions/D" } } }
        }
        vendor_extension { name: "x-kubernetes-group-version-kind" value { yaml: "- group: \\"\\"\\n  kind: D\\n  version: v1\\n" } }
      } } }
      parameters { additional_properties { name: "shared" value { non_body_parameter { query_parameter_sub_schema { in: "query" name: "s" type: "boolean" } } } } }
      responses { additional_properties { name: "err" value { description: "Error" } } }
      security { additional_properties { name: "key" value { } } }
      security_definitions {
        additional_properties { name: "basic" value { basic_authentication_security { type: "basic" } } }
        additional_properties { name: "key" value { api_key_security { type: "apiKey" name: "authorization" in: "header" } } }
        additional_properties { name: "oauth" value { oauth2_access_code_security { type: "oauth2" flow: "accessCode" scopes { additional_properties { name: "read" value: "r" } } authorization_url: "a" token_url: "t" } } }
        additional_properties { name: "app" value { oauth2_application_security { type: "oauth2" flow: "application" token_url: "t" } } }
      }
      tags { name: "t" external_docs { url: "e" } }
      vendor_extension { name: "x-doc" value { yaml: "a: null\\n" } }
    `);
    expect(protocDecodeOpenApiV2(bytes)).to.equal(protocDecodeOpenApiV2(vector));
    expect(Buffer.from(bytes).equals(vector)).to.equal(true);
  });
});
