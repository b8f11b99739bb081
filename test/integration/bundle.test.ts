/**
 * The production entry point `dist/bundle/main.js` (scripts/bundle.js: the server bundled into one
 * file run with V8's code cache of it, issue 44's start-up time) runs as `dist/lib/server/main.js`
 * does: what lib/ finds on disk
 * beside its own files is found from the bundle too (proto/ for protobuf bodies, the OpenAPI v2
 * encoder's worker thread, the packages loaded at their first use, the workers --workers forks).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { Credentials, H2Client, readKubeconfig } from '../helpers/process-client';
import { childPids, ServerProcess, startServerProcess } from '../helpers/server-process';

const BUNDLE = path.resolve(__dirname, '../../bundle/main.js');
const BUNDLED_SERVER = path.resolve(__dirname, '../../bundle/orch-apiserver.js');
const MAIN_JS = path.resolve(__dirname, '../../lib/server/main.js');

/** A request with its own Accept and Content-Type, answered as bytes. */
function rawRequest(creds: Credentials, method: string, p: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(creds.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
    session.on('error', reject);
    const stream = session.request({ ':method': method, ':path': p, ...headers });
    const chunks: Buffer[] = [];
    let status = 0;
    let type = '';
    stream.on('response', (h) => { status = Number(h[':status']); type = String(h['content-type'] ?? ''); });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => { session.close(); resolve({ status, type, body: Buffer.concat(chunks) }); });
    stream.on('error', (err) => { session.close(); reject(err); });
    stream.end(body);
  });
}

describe('the bundled server (dist/bundle/main.js)', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;

  before(async () => {
    etcd = await startTestEtcd();
  });

  after(async () => {
    await etcd?.stop();
  });

  it('is built from the current compile (npm run build / make build bundles after tsc)', () => {
    expect(statSync(BUNDLED_SERVER).mtimeMs, `${BUNDLED_SERVER} is older than ${MAIN_JS}: run npm run build`).to.be.at.least(statSync(MAIN_JS).mtimeMs);
  });

  it('has a code cache this Node accepts', () => {
    const script = `const { readFileSync } = require('node:fs'); const { compile, CACHE } = require(${JSON.stringify(BUNDLE)});
      process.stdout.write(String(compile(readFileSync(CACHE)).cachedDataRejected));`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })).to.equal('false');
  });

  describe('one process', () => {
    let server: ServerProcess;
    let creds: Credentials;
    let client: H2Client;

    before(async () => {
      server = await startServerProcess([`--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/bundle-one', '--secure-port=0', '--log-level=error'], { script: BUNDLE });
      creds = readKubeconfig(server.kubeconfigPath);
      client = new H2Client(creds);
    });

    after(async () => {
      client?.close();
      await server?.stop();
    });

    it('serves JSON, and protobuf bodies from proto/', async () => {
      expect((await client.request('GET', '/readyz')).status).to.equal(200);
      const created = await client.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bundled' }, data: { a: '1' } });
      expect(created.status).to.equal(201);
      const proto = await rawRequest(creds, 'GET', '/api/v1/namespaces/default/configmaps/bundled', { accept: 'application/vnd.kubernetes.protobuf' });
      expect(proto.status).to.equal(200);
      expect(proto.type).to.equal('application/vnd.kubernetes.protobuf');
      expect(proto.body.subarray(0, 4).toString('latin1')).to.equal('k8s\0');
      const put = await rawRequest(creds, 'PUT', '/api/v1/namespaces/default/configmaps/bundled',
        { accept: 'application/json', 'content-type': 'application/vnd.kubernetes.protobuf' }, proto.body);
      expect(put.status, put.body.toString()).to.equal(200);
      expect(JSON.parse(put.body.toString()).data).to.deep.equal({ a: '1' });
    });

    it('takes a YAML body (a package loaded at its first use)', async () => {
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  b: "2"\n';
      const created = await rawRequest(creds, 'POST', '/api/v1/namespaces/default/configmaps',
        { accept: 'application/json', 'content-type': 'application/yaml' }, Buffer.from(yaml));
      expect(created.status, created.body.toString()).to.equal(201);
      expect(JSON.parse(created.body.toString()).data).to.deep.equal({ b: '2' });
    });

    it('answers OpenAPI v2 in protobuf (its encoder is a worker thread bundled beside main.js)', async () => {
      const v2 = await rawRequest(creds, 'GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
      expect(v2.status).to.equal(200);
      expect(v2.type).to.contain('protobuf');
      expect(v2.body.length).to.be.above(100_000);
    });
  });

  it('forks its --workers from the bundle', async () => {
    const server = await startServerProcess([`--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/bundle-workers', '--secure-port=0', '--log-level=error', '--workers=2'], { script: BUNDLE });
    try {
      const client = new H2Client(readKubeconfig(server.kubeconfigPath));
      try {
        expect((await client.request('GET', '/api/v1/namespaces/default')).status).to.equal(200);
      } finally {
        client.close();
      }
      const workers = childPids(server.process.pid).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
      expect(workers.filter((argv) => argv.includes(BUNDLE))).to.have.length(2);
    } finally {
      await server.stop();
    }
  });
});
