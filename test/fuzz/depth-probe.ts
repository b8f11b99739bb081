/**
 * Measures how deep a body can nest before some step of the request path overflows the stack,
 * with the decode limits lifted: `node dist/test/fuzz/depth-probe.js [depth ...]`. For each depth
 * it drives the deep value through every path that walks a decoded object (create, get, list,
 * watch, merge/JSON patch, apply in YAML, a deep CRD schema, protobuf with embedded JSON) and
 * prints, per step, the status (and `overflow` when the server's RangeError fallback answered).
 * This is how MAX_JSON_DEPTH and MAX_YAML_DEPTH in lib/api/decode-limits.ts were chosen.
 */
import * as limits from '../../lib/api/decode-limits';
import { startTestServer, TestServer, eventually } from '../helpers/server-harness';
import { cronTabSchema } from '../helpers/crd-fixtures';
import { encodeProtobuf } from '../../lib/scheme/protobuf';

type Obj = Record<string, any>;

/** `{"a":{"a":...{"a":1}}}` with `depth` objects, or `[[...[1]]]` with `depth` arrays. */
export function deepValue(depth: number, kind: 'object' | 'array' | 'mixed' = 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) {
    const arr = kind === 'array' || (kind === 'mixed' && i % 2 === 1);
    v = arr ? [v] : { a: v };
  }
  return v;
}

/** Deep JSON text without JSON.stringify (which itself overflows past a few thousand levels). */
export function deepJsonText(depth: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Deep YAML flow text: `{a: {a: ... 1}}`. */
export function deepYamlFlow(depth: number): string {
  return `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
}

async function main(): Promise<void> {
  const depths = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const list = depths.length ? depths : [300, 500, 700, 1000, 1500, 2000, 3000];
  // Lift the limits: every depth reaches the handlers.
  (limits as any).MAX_JSON_DEPTH = 1e9;
  (limits as any).MAX_YAML_DEPTH = 1e9;
  const t: TestServer = await startTestServer();
  try {
    const g = 'probe.example.com';
    const schema = cronTabSchema() as Obj;
    schema.properties.spec.properties.extra = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const crd = { apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `crontabs.${g}` },
      spec: { group: g, scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] } };
    const r = await t.post('/apis/apiextensions.orch.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201) throw new Error(r.text);
    await eventually(async () => (await t.get(`/apis/${g}/v1/crontabs`)).status === 200, 10_000, 50);
    const base = `/apis/${g}/v1/namespaces/default/crontabs`;
    const show = (res: { status: number; text: string }) => `${res.status}${res.text.includes('nested too deeply') ? ' overflow' : ''}`;
    for (const d of list) {
      const row: string[] = [];
      const inner = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      // The object's own depth is d: root, spec, then n objects from spec.extra down.
      const n = Math.max(1, d - 2);
      const name = `d${d}`;
      const objText = `{"apiVersion":"${g}/v1","kind":"CronTab","metadata":{"name":"${name}"},"spec":{"extra":${inner(n)}}}`;
      const watch = t.get(`${base}?watch=1&timeoutSeconds=2&fieldSelector=metadata.name=${name}`);
      const c = await t.request('POST', base, { raw: objText, headers: { 'content-type': 'application/json' } });
      row.push(`create=${show(c)}`);
      row.push(`get=${show(await t.get(`${base}/${name}`))}`);
      row.push(`list=${show(await t.get(base))}`);
      const w = await watch;
      row.push(`watch=${w.status}${w.text.includes('"ADDED"') ? '+event' : ''}`);
      row.push(`merge=${show(await t.request('PATCH', `${base}/${name}`, { raw: `{"spec":{"extra":{"b":${inner(n - 1)}}}}`, headers: { 'content-type': 'application/merge-patch+json' } }))}`);
      row.push(`jsonpatch=${show(await t.request('PATCH', `${base}/${name}`, { raw: `[{"op":"add","path":"/spec/extra/c","value":${inner(n - 1)}}]`, headers: { 'content-type': 'application/json-patch+json' } }))}`);
      const yamlObj = `{apiVersion: ${g}/v1, kind: CronTab, metadata: {name: y${name}}, spec: {extra: ${deepYamlFlow(n)}}}`;
      row.push(`apply=${show(await t.request('PATCH', `${base}/y${name}?fieldManager=probe`, { raw: yamlObj, headers: { 'content-type': 'application/apply-patch+yaml' } }))}`);
      row.push(`yamlcreate=${show(await t.request('POST', base, { raw: yamlObj.replace(`y${name}`, `z${name}`), headers: { 'content-type': 'application/yaml' } }))}`);
      // A CRD whose schema nests d/2 properties levels (each level is properties + the property).
      let s: Obj = { type: 'object' };
      for (let i = 0; i < Math.floor((d - 8) / 2); i++) s = { type: 'object', properties: { a: s } };
      const deepCrd = { ...crd, metadata: { name: `crontabs.d${d}.example.com` }, spec: { ...crd.spec, group: `d${d}.example.com`, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: s } }] } };
      row.push(`crd=${show(await t.request('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', { raw: deepText(deepCrd), headers: { 'content-type': 'application/json' } }))}`);
      // Protobuf: a ConfigMap has no JSON fields; an admission review does not go through here. A
      // CRD in protobuf carries JSONSchemaProps, recursive.
      try {
        const pb = encodeProtobuf({ ...deepCrd, apiVersion: 'apiextensions.orch.io/v1', metadata: { name: `crontabs.p${d}.example.com` }, spec: { ...deepCrd.spec, group: `p${d}.example.com` } } as any);
        row.push(`protobuf=${show(await t.request('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', { raw: Buffer.from(pb), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } }))}`);
      } catch (err) {
        row.push(`protobuf=encode-failed(${(err as Error).message})`);
      }
      row.push(`livez=${(await t.get('/livez')).status}`);
      console.log(`depth ${d}: ${row.join(' ')}`);
    }
  } finally {
    await t.stop();
  }
}

/** JSON text of a value that may be deeper than JSON.stringify survives (an explicit stack). */
export function deepText(v: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string' && x.startsWith('\u0000')) { out.push(x.slice(1)); continue; }
    if (x === null || typeof x !== 'object') { out.push(JSON.stringify(x)); continue; }
    const entries = Array.isArray(x) ? x.map((e) => [undefined, e] as const) : Object.entries(x as Obj);
    const parts: unknown[] = [`\u0000${Array.isArray(x) ? '[' : '{'}`];
    entries.forEach(([k, e], i) => {
      if (i) parts.push('\u0000,');
      if (k !== undefined) parts.push(`\u0000${JSON.stringify(k)}:`);
      parts.push(e);
    });
    parts.push(`\u0000${Array.isArray(x) ? ']' : '}'}`);
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  }
  return out.join('');
}

if (require.main === module) {
  main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
}
