/**
 * Nesting limits over HTTPS against a real etcd (lib/api/decode-limits.ts): JSON bodies may nest
 * 1,000 levels and YAML bodies 500; deeper ones are refused with 400 `exceeded max depth of N`
 * before anything recursive runs, the store is left as it was, and the process lives on. Pins
 * the two reported failures: a merge patch nested 100,000 levels (was 500, RangeError) and a YAML
 * body of 1,000 then one of 10,000 levels (aborted the process in yaml's Composer).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, startTestServer, TestServer, eventually } from '../helpers/server-harness';
import { cronTabSchema } from '../helpers/crd-fixtures';
import { encodeProtobuf } from '../../lib/scheme/protobuf';
import { MAX_JSON_DEPTH, MAX_YAML_DEPTH } from '../../lib/api/decode-limits';

type Obj = Record<string, any>;

const NS = 'deep';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const GROUP = 'deep.example.com';
const CT = `/apis/${GROUP}/v1/namespaces/${NS}/crontabs`;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

/** `{"a":{"a":...1}}`: `n` objects. */
const jsonObjects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
/** `{a: {a: ... 1}}` in YAML flow style: `n` mappings. */
const yamlFlow = (n: number) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`;
/** `[[...]]`: `n` sequences (the shape of the original YAML crash). */
const brackets = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
/** A CronTab whose own nesting is `depth` levels: root, spec, then depth-2 objects from extra down. */
const cronTabJson = (name: string, depth: number) =>
  `{"apiVersion":"${GROUP}/v1","kind":"CronTab","metadata":{"name":"${name}"},"spec":{"extra":${jsonObjects(depth - 2)}}}`;
const cronTabYaml = (name: string, depth: number) =>
  `{apiVersion: ${GROUP}/v1, kind: CronTab, metadata: {name: ${name}}, spec: {extra: ${yamlFlow(depth - 2)}}}`;

function expectDepthRefusal(res: HttpResponse, max: number): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  expect(res.body.message).to.contain(`exceeded max depth of ${max}`);
}

describe('nesting limits on request bodies', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-deep-'));
    // Audit at RequestResponse: the audit filter reads patch bodies too (JSON, or YAML for apply).
    writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n');
    t = await startTestServer([`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${path.join(dir, 'audit.log')}`]);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    expect((await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: 'b' } })).status).to.equal(201);
    const schema = cronTabSchema() as Obj;
    schema.properties.spec.properties.extra = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `crontabs.${GROUP}` },
      spec: {
        group: GROUP, scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
    };
    expect((await t.post(CRDS, crd)).status).to.equal(201);
    await eventually(async () => (await t.get(CT)).status === 200, 10_000, 50);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const alive = async () => expect((await t.get('/livez')).status).to.equal(200);

  it('a merge patch nested 100,000 levels is 400 and leaves the object as it was', async () => {
    const before = (await t.get(`${CM}/target`)).body;
    const res = await t.request('PATCH', `${CM}/target`, {
      raw: `{"data":{"x":"y"},"extra":${jsonObjects(100_000)}}`, headers: { 'content-type': 'application/merge-patch+json' },
    });
    expectDepthRefusal(res, MAX_JSON_DEPTH);
    const after = (await t.get(`${CM}/target`)).body;
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    expect(after.data).to.deep.equal({ a: 'b' });
    await alive();
  });

  it('every patch type and every JSON body path refuses 100,000 levels with 400', async () => {
    const deep = jsonObjects(100_000);
    for (const [method, p, type, body] of [
      ['PATCH', `${CM}/target`, 'application/json-patch+json', `[{"op":"add","path":"/data/x","value":${deep}}]`],
      ['PATCH', `${CM}/target`, 'application/strategic-merge-patch+json', `{"data":${deep}}`],
      ['POST', CM, 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"extra":${deep}}`],
      ['PUT', `${CM}/target`, 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"extra":${deep}}`],
      ['DELETE', `${CM}/target`, 'application/json', `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":${deep}}`],
      ['POST', CT, 'application/json', cronTabJson('x', 100_000)],
    ] as const) {
      const res = await t.request(method, p, { raw: body, headers: { 'content-type': type } });
      expectDepthRefusal(res, MAX_JSON_DEPTH);
    }
    expect((await t.get(`${CM}/target`)).body.data).to.deep.equal({ a: 'b' });
    expect((await t.get(`${CM}/x`)).status).to.equal(404);
    await alive();
  });

  it(`JSON at ${MAX_JSON_DEPTH} levels is stored, read, listed, watched and patched; one more level is 400`, async () => {
    const watch = t.get(`${CT}?watch=1&timeoutSeconds=3&fieldSelector=metadata.name=at-limit`);
    const created = await t.request('POST', CT, { raw: cronTabJson('at-limit', MAX_JSON_DEPTH), headers: { 'content-type': 'application/json' } });
    expect(created.status, created.text).to.equal(201);
    let v = (await t.get(`${CT}/at-limit`)).body.spec.extra;
    let depth = 3;
    while (v && typeof v === 'object') { v = v.a; depth++; }
    expect(depth - 1).to.equal(MAX_JSON_DEPTH);
    expect((await t.get(CT)).status).to.equal(200);
    expect((await watch).text).to.contain('"ADDED"');
    // A merge patch of the same depth (the patch's own depth is one less than the object's).
    const patched = await t.request('PATCH', `${CT}/at-limit`, {
      raw: `{"spec":{"extra":{"b":${jsonObjects(MAX_JSON_DEPTH - 3)}}}}`, headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.text).to.equal(200);
    expectDepthRefusal(await t.request('POST', CT, { raw: cronTabJson('over', MAX_JSON_DEPTH + 1), headers: { 'content-type': 'application/json' } }), MAX_JSON_DEPTH);
    expect((await t.get(`${CT}/over`)).status).to.equal(404);
  });

  it('brackets inside strings do not count toward the depth', async () => {
    const res = await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'brackets' }, data: { s: '{['.repeat(5000) + '\\"{' } });
    expect(res.status, res.text).to.equal(201);
  });

  it('YAML of 1,000 then 10,000 levels is 400 each time, and the process lives on', async () => {
    for (const n of [1000, 10_000, 1000, 10_000]) {
      for (const [method, p, type] of [
        ['POST', CM, 'application/yaml'],
        ['PATCH', `${CM}/target?fieldManager=deep`, 'application/apply-patch+yaml'],
      ] as const) {
        const res = await t.request(method, p, { raw: brackets(n), headers: { 'content-type': type } });
        expectDepthRefusal(res, MAX_YAML_DEPTH);
        await alive();
      }
    }
    // Still serving YAML.
    const ok = await t.request('POST', CM, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-yaml\ndata:\n  a: b\n', headers: { 'content-type': 'application/yaml' } });
    expect(ok.status, ok.text).to.equal(201);
  });

  it(`YAML at ${MAX_YAML_DEPTH} levels is applied; one more level is 400`, async () => {
    const at = await t.request('PATCH', `${CT}/yaml-at?fieldManager=deep`, { raw: cronTabYaml('yaml-at', MAX_YAML_DEPTH), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect(at.status, at.text).to.equal(201);
    const over = await t.request('PATCH', `${CT}/yaml-over?fieldManager=deep`, { raw: cronTabYaml('yaml-over', MAX_YAML_DEPTH + 1), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expectDepthRefusal(over, MAX_YAML_DEPTH);
    expect((await t.get(`${CT}/yaml-over`)).status).to.equal(404);
  });

  it('YAML aliases that nest deeper than the text, and a billion laughs, are 400', async () => {
    // Each anchor wraps the previous alias in one more sequence: the text is flat, the value is not.
    const lines = ['a0: &a0 [1]'];
    for (let i = 1; i <= MAX_YAML_DEPTH + 10; i++) lines.push(`a${i}: &a${i} [*a${i - 1}]`);
    const chain = await t.request('POST', CM, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: alias}\nextra:\n  ${lines.join('\n  ')}\n`, headers: { 'content-type': 'application/yaml' } });
    expect(chain.status, chain.text).to.equal(400);
    expect(chain.body.kind).to.equal('Status');
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const bomb = await t.request('POST', CM, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\nextra:\n  ${laughs.join('\n  ')}\n`, headers: { 'content-type': 'application/yaml' } });
    expect(bomb.status, bomb.text).to.equal(400);
    expect(bomb.body.message).to.match(/alias/i);
    expect((await t.get(`${CM}/alias`)).status).to.equal(404);
    expect((await t.get(`${CM}/lol`)).status).to.equal(404);
    await alive();
  });

  it('a protobuf CustomResourceDefinition whose schema nests past the limit is 400', async () => {
    let s: Obj = { type: 'object' };
    // Each level is a JSONSchemaProps and its properties map: two levels of the decoded value.
    for (let i = 0; i < MAX_JSON_DEPTH / 2 + 10; i++) s = { type: 'object', properties: { a: s } };
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.pb.example.com' },
      spec: {
        group: 'pb.example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: s } }],
      },
    };
    const res = await t.request('POST', CRDS, { raw: Buffer.from(encodeProtobuf(crd as any)), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
    expectDepthRefusal(res, MAX_JSON_DEPTH);
    expect((await t.get(`${CRDS}/things.pb.example.com`)).status).to.equal(404);
    await alive();
  });
});
