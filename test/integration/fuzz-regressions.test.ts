/**
 * Bugs the fuzz suite (test/fuzz/) found, pinned over HTTPS against a real etcd, each with the
 * input that showed it:
 *  - a patch whose result has a `metadata` that is no object answered 500: now 422 Invalid on
 *    the field `patch`, as kube-apiserver answers when the patched JSON does not decode;
 *  - a malformed percent-escape in a namespace or name (`%ZZ`, a lone `%`, `%C0%AF`) threw a
 *    URIError, answered 500: now 400 BadRequest;
 *  - a YAML body that yaml warns about (a complex key) wrote the warning on the process's stderr
 *    for any client; and a YAML syntax error lost the `:` that ends yaml's own first message line;
 *  - a list body of many megabytes read by a slow client left one 'close' listener per
 *    backpressure wait on the response (Node's MaxListenersExceededWarning past ten);
 *  - a patch made only of JSON-patch `test` operations (and any update that changes nothing)
 *    was written as a new revision: now nothing is written, as Kubernetes' GuaranteedUpdate;
 *  - a broken 400 KB merge patch, audited at Request level, took 155 s to answer 400: the audit
 *    read it as YAML after JSON failed, and yaml's error recovery made an Error per token whose
 *    positions were found by a regular expression over the whole one-line body.
 */
import { expect } from 'chai';
import https from 'node:https';
import YAML from 'yaml';
import { readFileSync } from 'node:fs';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deepJson } from '../fuzz/arbitraries';

const NS = 'fuzzreg';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

describe('fuzz regressions', function () {
  this.timeout(60_000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    expect((await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  const expectStatus = (res: HttpResponse, code: number, reason: string) => {
    expect(res.status, res.text).to.equal(code);
    expect(res.body).to.include({ kind: 'Status', status: 'Failure', code, reason });
  };

  it('a patch that makes metadata a string, number, boolean or array is 422 on `patch`; the object is unchanged', async () => {
    const before = (await t.get(`${CM}/cm`)).body;
    for (const [type, body, go] of [
      ['application/merge-patch+json', '{"metadata":"x"}', 'string'],
      ['application/strategic-merge-patch+json', '{"metadata":5}', 'number'],
      ['application/merge-patch+json', '{"metadata":true}', 'bool'],
      ['application/json-patch+json', '[{"op":"replace","path":"/metadata","value":[1]}]', 'array'],
    ] as const) {
      const res = await t.request('PATCH', `${CM}/cm`, { raw: body, headers: { 'content-type': type } });
      expectStatus(res, 422, 'Invalid');
      expect(res.body.message, body).to.contain(`json: cannot unmarshal ${go} into Go struct field ConfigMap.metadata of type v1.ObjectMeta`);
      expect(res.body.details.causes[0].field).to.equal('patch');
    }
    const after = (await t.get(`${CM}/cm`)).body;
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    expect(after.data).to.deep.equal({ a: 'b' });
  });

  it('malformed percent-escapes in a namespace or name are 400, under every method', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      for (const p of [`${CM}/%ZZ`, `${CM}/a%`, `${CM}/%C0%AF`, '/api/v1/namespaces/%E2%80/configmaps', '/api/v1/namespaces/%/configmaps/x']) {
        const res = await t.request(method, p, method === 'GET' || method === 'DELETE' ? {} : { raw: '{}', headers: { 'content-type': 'application/merge-patch+json' } });
        expectStatus(res, 400, 'BadRequest');
        expect(res.body.message, `${method} ${p}`).to.match(/invalid URL escape|not valid UTF-8/);
      }
    }
    expect((await t.get('/livez')).status).to.equal(200);
  });

  it('YAML: a syntax error reads as yaml writes it; a warning is not written to the process', async () => {
    const text = 'a: [unclosed';
    const first = YAML.parseAllDocuments(text) as YAML.Document.Parsed[];
    const yamlLine = first[0].errors[0].message.split('\n')[0];
    expect(yamlLine).to.match(/ at line 1, column 13:$/);
    const bad = await t.request('POST', CM, { raw: text, headers: { 'content-type': 'application/yaml' } });
    expectStatus(bad, 400, 'BadRequest');
    expect(bad.body.message).to.equal(`the request body could not be decoded as YAML: ${yamlLine}`);

    const warned: string[] = [];
    const onWarning = (w: Error) => warned.push(w.message);
    process.on('warning', onWarning);
    try {
      // A complex (sequence) key: yaml stringifies it and warns, by default on the process.
      const res = await t.request('POST', CM, {
        raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: complex\ndata:\n  ? [a, b]\n  : c\n', headers: { 'content-type': 'application/yaml' },
      });
      expect(res.status, res.text).to.be.below(500);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warned.filter((m) => /stringif|collection/i.test(m))).to.deep.equal([]);
  });

  it('a list of many megabytes read slowly leaves no listener behind on the response', async () => {
    const big = 'x'.repeat(900_000);
    for (let i = 0; i < 14; i++) {
      const res = await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { v: big } });
      expect(res.status, res.text).to.equal(201);
    }
    const warned: string[] = [];
    const onWarning = (w: Error) => warned.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      // A client that reads a chunk now and then: the server waits for 'drain' many times.
      const url = new URL(`${t.server.url}${CM}`);
      const size = await new Promise<number>((resolve, reject) => {
        const req = https.request(url, {
          ca: t.server.pki.caCertPem, cert: readFileSync(t.server.pki.adminCertFile), key: readFileSync(t.server.pki.adminKeyFile),
          headers: { accept: 'application/json' },
        }, (res) => {
          let n = 0;
          res.on('data', (c: Buffer) => { n += c.length; res.pause(); setTimeout(() => res.resume(), 2); });
          res.on('end', () => resolve(n));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      expect(size).to.be.above(14 * 900_000);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warned.filter((w) => /MaxListeners/.test(w))).to.deep.equal([]);
  });

  it('an update or patch that changes nothing writes nothing: same resourceVersion, no watch event', async () => {
    const created = await t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noop' }, data: { a: '1' } });
    expect(created.status, created.text).to.equal(201);
    const rv = created.body.metadata.resourceVersion;
    const watch = openWatch(adminTarget(t.server), `${CM}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dnoop`);
    try {
      await watch.response();
      const patch = (type: string, body: unknown) => t.request('PATCH', `${CM}/noop`, { raw: JSON.stringify(body), headers: { 'content-type': type } });
      const answers = [
        await patch('application/json-patch+json', [{ op: 'test', path: '/data/a', value: '1' }]),
        await patch('application/json-patch+json', []),
        await patch('application/merge-patch+json', { data: { a: '1' } }),
        await patch('application/strategic-merge-patch+json', {}),
        await t.put(`${CM}/noop`, (await t.get(`${CM}/noop`)).body),
      ];
      for (const res of answers) {
        expect(res.status, res.text).to.equal(200);
        expect(res.body.metadata.resourceVersion).to.equal(rv);
        expect(res.body.metadata.managedFields).to.deep.equal(created.body.metadata.managedFields);
      }
      // A real change is written, and its event is the first the watch sees.
      const changed = await patch('application/merge-patch+json', { data: { a: '2' } });
      expect(changed.body.metadata.resourceVersion).to.not.equal(rv);
      const first = await watch.next();
      expect(first.type).to.equal('MODIFIED');
      expect(first.object.metadata.resourceVersion).to.equal(changed.body.metadata.resourceVersion);
    } finally {
      watch.close();
    }
  });

  it('a broken 400 KB merge patch, audited at Request level, is 400 at once; the audit keeps it as text', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-fuzzreg-audit-'));
    writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Request\n');
    const log = path.join(dir, 'audit.log');
    const audited = await startTestServer([`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`]);
    try {
      expect((await audited.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
      expect((await audited.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } })).status).to.equal(201);
      // The input the fuzzer found (seed 1340534918): broken JSON, then 100,000 levels of {"k":[...
      const body = `{"kind":true,"spec":\\ ][\\[:,"data":":null[a:1a}:,"binaryData":${deepJson(100_000, 'mixed')}}`;
      const res = await audited.request('PATCH', `${CM}/cm`, { raw: body, headers: { 'content-type': 'application/merge-patch+json' } });
      expectStatus(res, 400, 'BadRequest');
      let event: { requestObject?: unknown } | undefined;
      for (let i = 0; i < 100 && !event; i++) {
        await new Promise((r) => setTimeout(r, 50));
        event = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
          .find((e) => e.verb === 'patch' && e.stage === 'ResponseComplete');
      }
      expect(event, 'the patch\'s audit event').to.not.equal(undefined);
      expect(event!.requestObject).to.equal(body);
    } finally {
      await audited.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
