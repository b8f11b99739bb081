import { expect } from 'chai';
import { convertV2ToV3, filterByPaths, mergeV2Documents } from '../../../lib/api/openapi/remote';

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

describe('OpenAPI of extension servers: kube-openapi merge rules', () => {
  const base = {
    swagger: '2.0', info: { title: 'Orch', version: 'v1' },
    paths: { '/api/v1/pods': { get: { responses: { 200: { schema: ref('Pod') } } } } },
    definitions: { Pod: { type: 'object' }, Shared: { type: 'string' } },
  };

  it('keeps only the paths under the prefixes and the definitions they use, transitively', () => {
    const doc = {
      paths: { '/apis/g/v1/things': { get: { responses: { 200: { schema: ref('ThingList') } } } }, '/version/': { get: {} } },
      definitions: { ThingList: { properties: { items: { items: ref('Thing') } } }, Thing: { type: 'object' }, Unused: {} },
    };
    const out = filterByPaths(doc, ['/apis/g/v1/']);
    expect(Object.keys(out.paths as object)).to.deep.equal(['/apis/g/v1/things']);
    expect(Object.keys(out.definitions as object)).to.deep.equal(['Thing', 'ThingList']);
  });

  it('ignores conflicting paths, reuses equal definitions and renames different ones with their references', () => {
    const remote = {
      paths: {
        '/api/v1/pods': { get: { operationId: 'theirs' } },
        '/apis/g/v1/things': { get: { responses: { 200: { schema: ref('Pod') }, 201: { schema: ref('Pod_v2') } }, parameters: [{ in: 'body', schema: ref('Shared') }] } },
      },
      definitions: { Pod: { type: 'object', description: 'another Pod' }, Shared: { type: 'string' }, Pod_v2: { type: 'number' } },
    };
    const merged = mergeV2Documents(base, [remote]) as any;
    expect(merged.paths['/api/v1/pods']).to.deep.equal(base.paths['/api/v1/pods']);
    expect(merged.paths['/apis/g/v1/things'].get.responses[200].schema).to.deep.equal(ref('Pod_v3'));
    expect(merged.paths['/apis/g/v1/things'].get.parameters[0].schema).to.deep.equal(ref('Shared'));
    expect(merged.definitions.Pod).to.deep.equal({ type: 'object' });
    expect(merged.definitions.Pod_v3).to.deep.equal({ type: 'object', description: 'another Pod' });
    expect(merged.definitions.Pod_v2).to.deep.equal({ type: 'number' });
    expect(merged.paths['/apis/g/v1/things'].get.responses[201].schema).to.deep.equal(ref('Pod_v2'));
    expect(merged.definitions.Shared).to.deep.equal({ type: 'string' });
    expect(merged.info).to.deep.equal(base.info);
  });

  it('converts a v2 document to v3', () => {
    const v3 = convertV2ToV3({
      swagger: '2.0', info: { title: 't', version: '1' }, consumes: ['application/json'], produces: ['application/json', 'application/yaml'],
      paths: { '/apis/g/v1/things': { post: { operationId: 'create', parameters: [{ in: 'body', name: 'body', required: true, schema: ref('Thing') }, { in: 'query', name: 'dryRun', type: 'string', uniqueItems: true }], responses: { 201: { description: 'Created', schema: ref('Thing') }, 401: { description: 'Unauthorized' } } } } },
      definitions: { Thing: { properties: { spec: ref('Spec') } }, Spec: { type: 'object' } },
    }) as any;
    const post = v3.paths['/apis/g/v1/things'].post;
    expect(post.requestBody).to.deep.equal({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } }, required: true });
    expect(post.parameters).to.deep.equal([{ in: 'query', name: 'dryRun', schema: { type: 'string', uniqueItems: true } }]);
    expect(post.responses[201].content['application/yaml'].schema).to.deep.equal({ $ref: '#/components/schemas/Thing' });
    expect(post.responses[401]).to.deep.equal({ description: 'Unauthorized' });
    expect(v3.components.schemas.Thing.properties.spec).to.deep.equal({ $ref: '#/components/schemas/Spec' });
  });
});
