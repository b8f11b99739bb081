/**
 * Bad requests through HTTPS against a real etcd: each one is answered with a Failure Status
 * of the right code and reason, and none of them writes anything to the store.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer, untilStoreQuiet, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';

const NS = 'bad';
const cmPath = (name = '', ns = NS) => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

function configMap(name: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra };
}

function expectStatus(res: HttpResponse, code: number, reason: string): void {
  expect(res.status, res.text.slice(0, 500)).to.equal(code);
  expect(res.body, res.text.slice(0, 500)).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(res.body.message).to.be.a('string').and.not.equal('');
}

describe('bad input', () => {
  let t: TestServer;
  let existing: any;

  before(async () => {
    // Without background writes that would move the store's revision under withoutWrites: the
    // namespace controllers' (default account, root-CA ConfigMap) and the controllers' Lease
    // renewed every 2 s, and the default/kubernetes endpoints' lease key renewed every 10 s.
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, '--leader-elect=false', '--endpoint-reconciler-type=none']);
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
    existing = (await t.post(cmPath(), configMap('existing', { data: { k: 'v' } }))).body;
    expect(existing.metadata.uid).to.be.a('string');
    await untilStoreQuiet(t, cmPath());
  });
  after(async () => { await t?.stop(); });

  /** Every ConfigMap in NS as name@resourceVersion, and the store's current revision. */
  async function storeState(): Promise<{ revision: string; objects: string[] }> {
    const res = await t.get(cmPath());
    expect(res.status).to.equal(200);
    return {
      revision: res.body.metadata.resourceVersion,
      objects: res.body.items.map((i: any) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort(),
    };
  }

  /** Runs the request and checks that the store's revision (so: any key anywhere) did not move. */
  async function withoutWrites(send: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const before = await storeState();
    const res = await send();
    expect(await storeState(), 'the store changed').to.deep.equal(before);
    return res;
  }

  /** A request with the path sent byte for byte (the harness' URL parsing would resolve `..`). */
  function rawPathRequest(method: string, rawPath: string): Promise<HttpResponse> {
    const url = new URL(t.server.url);
    return new Promise((resolve, reject) => {
      const req = https.request({
        hostname: url.hostname, port: url.port, path: rawPath, method, ca: t.server.pki.caCertPem,
        cert: readFileSync(t.server.pki.adminCertFile), key: readFileSync(t.server.pki.adminKeyFile),
        headers: { accept: 'application/json' },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try { body = JSON.parse(text); } catch { body = undefined; }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  describe('bodies that cannot be decoded as the kind (400)', () => {
    it('malformed JSON', async () => {
      const res = await withoutWrites(() => t.request('POST', cmPath(), {
        raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"half"', headers: { 'content-type': 'application/json' },
      }));
      expectStatus(res, 400, 'BadRequest');
      expect((await t.get(cmPath('half'))).status).to.equal(404);
    });

    it('malformed YAML', async () => {
      const res = await withoutWrites(() => t.request('POST', cmPath(), {
        raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n', headers: { 'content-type': 'application/yaml' },
      }));
      expectStatus(res, 400, 'BadRequest');
    });

    it('an empty body', async () => {
      const res = await withoutWrites(() => t.request('POST', cmPath(), { raw: '', headers: { 'content-type': 'application/json' } }));
      expectStatus(res, 400, 'BadRequest');
    });

    it('a JSON array', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), [configMap('in-array')]));
      expectStatus(res, 400, 'BadRequest');
      expect((await t.get(cmPath('in-array'))).status).to.equal(404);
    });

    it('a JSON scalar', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), 'just a string'));
      expectStatus(res, 400, 'BadRequest');
    });

    it('the wrong kind', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' } }));
      expectStatus(res, 400, 'BadRequest');
      expect((await t.get(cmPath('wrong-kind'))).status).to.equal(404);
      expect((await t.get(`/api/v1/namespaces/${NS}/secrets/wrong-kind`)).status).to.equal(404);
    });

    it('the wrong apiVersion', async () => {
      for (const apiVersion of ['apps/v1', 'v2']) {
        const res = await withoutWrites(() => t.post(cmPath(), { ...configMap('wrong-version'), apiVersion }));
        expectStatus(res, 400, 'BadRequest');
      }
      expect((await t.get(cmPath('wrong-version'))).status).to.equal(404);
    });

    it('Secret data that is not base64', async () => {
      const res = await withoutWrites(() => t.post(`/api/v1/namespaces/${NS}/secrets`, {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'not-base64' }, data: { key: 'not base64!' },
      }));
      expectStatus(res, 400, 'BadRequest');
      expect((await t.get(`/api/v1/namespaces/${NS}/secrets/not-base64`)).status).to.equal(404);
    });

    it('a ConfigMap data value that is a number', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), configMap('numeric', { data: { n: 42 } })));
      expectStatus(res, 400, 'BadRequest');
      expect((await t.get(cmPath('numeric'))).status).to.equal(404);
    });

    it('a resourceVersion on create', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), { ...configMap('with-rv'), metadata: { name: 'with-rv', resourceVersion: '12' } }));
      expectStatus(res, 400, 'BadRequest');
      expect(res.body.message).to.include('resourceVersion should not be set on objects to be created');
      expect((await t.get(cmPath('with-rv'))).status).to.equal(404);
    });
  });

  describe('bodies that disagree with the URL (400)', () => {
    it('a namespace in the body different from the path', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), { ...configMap('ns-mismatch'), metadata: { name: 'ns-mismatch', namespace: 'default' } }));
      expectStatus(res, 400, 'BadRequest');
      expect(res.body.message).to.include('the namespace of the provided object does not match the namespace sent on the request');
      expect((await t.get(cmPath('ns-mismatch'))).status).to.equal(404);
      expect((await t.get(cmPath('ns-mismatch', 'default'))).status).to.equal(404);
    });

    it('a name in the body different from the URL on PUT', async () => {
      const res = await withoutWrites(() => t.put(cmPath('existing'), { ...existing, metadata: { ...existing.metadata, name: 'renamed' }, data: { k: 'changed' } }));
      expectStatus(res, 400, 'BadRequest');
      expect(res.body.message).to.include('does not match the name on the URL');
      expect((await t.get(cmPath('existing'))).body.data).to.deep.equal({ k: 'v' });
      expect((await t.get(cmPath('renamed'))).status).to.equal(404);
    });
  });

  describe('objects that fail validation (422 Invalid)', () => {
    function causes(res: HttpResponse): Array<{ field: string; message: string; reason: string }> {
      expect(res.body.details?.causes, res.text).to.be.an('array').that.is.not.empty;
      return res.body.details.causes;
    }

    it('an invalid name', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), configMap('Bad_Name')));
      expectStatus(res, 422, 'Invalid');
      expect(res.body.message).to.match(/^ConfigMap "Bad_Name" is invalid: /);
      const cause = causes(res).find((c) => c.field === 'metadata.name');
      expect(cause, res.text).to.not.equal(undefined);
      expect(cause!.message).to.include('a lowercase RFC 1123 subdomain');
    });

    it('an invalid label key', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), { ...configMap('bad-label-key'), metadata: { name: 'bad-label-key', labels: { 'bad key!': 'v' } } }));
      expectStatus(res, 422, 'Invalid');
      expect(causes(res).map((c) => c.field)).to.include('metadata.labels');
      expect((await t.get(cmPath('bad-label-key'))).status).to.equal(404);
    });

    it('an invalid label value', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), { ...configMap('bad-label-value'), metadata: { name: 'bad-label-value', labels: { ok: 'not valid!' } } }));
      expectStatus(res, 422, 'Invalid');
      expect(causes(res).map((c) => c.field)).to.include('metadata.labels');
    });

    it('an invalid label on update leaves the stored object as it was', async () => {
      const res = await withoutWrites(() => t.put(cmPath('existing'), { ...existing, metadata: { ...existing.metadata, labels: { '-x': 'y' } } }));
      expectStatus(res, 422, 'Invalid');
    });

    it('a ConfigMap key with a space', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), configMap('bad-key', { data: { 'bad key': 'v' } })));
      expectStatus(res, 422, 'Invalid');
      expect(causes(res).map((c) => c.field)).to.include('data[bad key]');
      expect((await t.get(cmPath('bad-key'))).status).to.equal(404);
    });

    it('a key in both data and binaryData', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), configMap('overlap', { data: { same: 'text' }, binaryData: { same: Buffer.from('bin').toString('base64') } })));
      expectStatus(res, 422, 'Invalid');
      // Kubernetes reports the overlap on the data key ("duplicate of key present in binaryData").
      expect(causes(res).map((c) => c.field)).to.include('data[same]');
      expect((await t.get(cmPath('overlap'))).status).to.equal(404);
    });
  });

  describe('size limits', () => {
    it('a body over 3 MiB is 413 RequestEntityTooLarge', async () => {
      const huge = configMap('huge', { data: { big: 'x'.repeat(3 * 1024 * 1024 + 10) } });
      const res = await withoutWrites(() => t.post(cmPath(), huge));
      expectStatus(res, 413, 'RequestEntityTooLarge');
      expect((await t.get(cmPath('huge'))).status).to.equal(404);
    });

    it('a chunked body (no Content-Length) over 3 MiB is 413 too, answered before the client has finished sending', async () => {
      const url = new URL(t.server.url);
      const res = await withoutWrites(() => new Promise<HttpResponse>((resolve, reject) => {
        const req = https.request({
          hostname: url.hostname, port: url.port, path: cmPath(), method: 'POST', ca: t.server.pki.caCertPem,
          cert: readFileSync(t.server.pki.adminCertFile), key: readFileSync(t.server.pki.adminKeyFile),
          headers: { accept: 'application/json', 'content-type': 'application/json' },
        }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: JSON.parse(text) });
          });
        });
        req.on('error', reject);
        // 1 MiB chunks for ever: only the server's answer ends this request.
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < 64 && !req.destroyed && req.write(sent === 0 ? Buffer.from('{"data":{"big":"') : chunk)) sent++;
          if (sent < 64 && !req.destroyed) req.once('drain', () => { sent++; pump(); });
        };
        pump();
      }));
      expectStatus(res, 413, 'RequestEntityTooLarge');
      expect((await t.get(cmPath('existing'))).status, 'the server still answers').to.equal(200);
    });

    it('a ConfigMap over the 1 MiB data limit but under the body limit is refused with a clear message', async () => {
      const res = await withoutWrites(() => t.post(cmPath(), configMap('big', { data: { big: 'y'.repeat(1.2 * 1024 * 1024) } })));
      expect(res.status).to.be.oneOf([413, 422]);
      expect(res.body).to.include({ kind: 'Status', status: 'Failure', code: res.status });
      expect(res.body.message).to.match(/1048576 bytes|too large/i);
      expect((await t.get(cmPath('big'))).status).to.equal(404);
    });
  });

  describe('content negotiation', () => {
    it('Content-Type text/plain is 415 UnsupportedMediaType', async () => {
      const res = await withoutWrites(() => t.request('POST', cmPath(), {
        raw: JSON.stringify(configMap('as-text')), headers: { 'content-type': 'text/plain' },
      }));
      expectStatus(res, 415, 'UnsupportedMediaType');
      expect((await t.get(cmPath('as-text'))).status).to.equal(404);
    });

    it('Accept application/xml is 406 NotAcceptable on a read', async () => {
      const res = await t.get(cmPath('existing'), { headers: { accept: 'application/xml' } });
      expectStatus(res, 406, 'NotAcceptable');
    });

    it('Accept application/xml is 406 NotAcceptable on a write, and nothing is written', async () => {
      const create = await withoutWrites(() => t.post(cmPath(), configMap('xml-create'), { headers: { accept: 'application/xml' } }));
      expectStatus(create, 406, 'NotAcceptable');
      expect((await t.get(cmPath('xml-create'))).status).to.equal(404);

      const update = await withoutWrites(() => t.put(cmPath('existing'), { ...existing, data: { k: 'xml' } }, { headers: { accept: 'application/xml' } }));
      expectStatus(update, 406, 'NotAcceptable');

      const del = await withoutWrites(() => t.del(cmPath('existing'), undefined, { headers: { accept: 'application/xml' } }));
      expectStatus(del, 406, 'NotAcceptable');
      expect((await t.get(cmPath('existing'))).status).to.equal(200);
    });
  });

  describe('paths that name no resource', () => {
    for (const [method, path] of [
      ['GET', '/api/v1/foos'],
      ['POST', '/api/v1/foos'],
      ['GET', '/apis/nope/v1/foos'],
      ['POST', '/apis/nope/v1/foos'],
      ['GET', `/api/v1/namespaces/${NS}/foos`],
      ['GET', '/api/v1/namespaces/default/namespaces'],
      ['POST', '/api/v1/namespaces/default/namespaces'],
    ] as const) {
      it(`${method} ${path} is 404 NotFound`, async () => {
        const res = await withoutWrites(() => t.request(method, path, method === 'POST' ? { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nowhere' } } } : {}));
        expectStatus(res, 404, 'NotFound');
      });
    }

    it('a name ".." or "." in the URL is 400, also percent-encoded', async () => {
      for (const [method, path] of [
        ['GET', `${cmPath()}/..`], ['DELETE', `${cmPath()}/..`], ['GET', `${cmPath()}/%2E%2E`], ['GET', `${cmPath()}/.`],
        ['GET', '/api/v1/namespaces/../configmaps'],
      ]) {
        const res = await withoutWrites(() => rawPathRequest(method, path));
        expectStatus(res, 400, 'BadRequest');
      }
    });
  });

  describe('verbs a path does not allow (405)', () => {
    it('POST to a single object path', async () => {
      const res = await withoutWrites(() => t.post(cmPath('existing'), configMap('existing', { data: { k: 'posted' } })));
      expectStatus(res, 405, 'MethodNotAllowed');
      expect((await t.get(cmPath('existing'))).body.data).to.deep.equal({ k: 'v' });
    });

    it('deletecollection on namespaces', async () => {
      const res = await withoutWrites(() => t.del('/api/v1/namespaces'));
      expectStatus(res, 405, 'MethodNotAllowed');
      const left = await t.get('/api/v1/namespaces');
      expect(left.body.items.map((n: any) => n.metadata.name)).to.include.members(['default', NS]);
      for (const n of left.body.items) expect(n.status.phase).to.equal('Active');
    });
  });

  describe('DELETE options', () => {
    it('a uid precondition that does not match is 409 Conflict and the object stays', async () => {
      const res = await withoutWrites(() => t.del(cmPath('existing'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } }));
      expectStatus(res, 409, 'Conflict');
      expect(res.body.message).to.include('Precondition failed: UID in precondition: not-the-uid');
      expect((await t.get(cmPath('existing'))).status).to.equal(200);
    });

    it('a resourceVersion precondition that does not match is 409 Conflict and the object stays', async () => {
      const res = await withoutWrites(() => t.del(cmPath('existing'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } }));
      expectStatus(res, 409, 'Conflict');
      expect(res.body.message).to.include('Precondition failed: ResourceVersion in precondition: 1');
      expect((await t.get(cmPath('existing'))).status).to.equal(200);
    });

    it('matching preconditions delete the object', async () => {
      const victim = (await t.post(cmPath(), configMap('victim'))).body;
      const res = await t.del(cmPath('victim'), { preconditions: { uid: victim.metadata.uid, resourceVersion: victim.metadata.resourceVersion } });
      expect(res.status, res.text).to.equal(200);
      expect((await t.get(cmPath('victim'))).status).to.equal(404);
    });

    it('propagationPolicy Sideways is 422 Invalid, in the query or in the body', async () => {
      const inQuery = await withoutWrites(() => t.del(`${cmPath('existing')}?propagationPolicy=Sideways`));
      expectStatus(inQuery, 422, 'Invalid');
      expect(inQuery.body.message).to.include('Sideways');
      const inBody = await withoutWrites(() => t.del(cmPath('existing'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Sideways' }));
      expectStatus(inBody, 422, 'Invalid');
      expect((await t.get(cmPath('existing'))).status).to.equal(200);
    });

    it('DeleteOptions fields of the wrong JSON type are 400 with Go\'s decoder text, not 500 (an object whose toString is not a function among them)', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ orphanDependents: { toString: false } }, 'json: cannot unmarshal object into Go struct field DeleteOptions.orphanDependents of type bool'],
        [{ orphanDependents: 'true' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool'],
        [{ gracePeriodSeconds: { valueOf: 1 } }, 'json: cannot unmarshal object into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
        [{ gracePeriodSeconds: '5' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
        [{ propagationPolicy: ['Orphan'] }, 'json: cannot unmarshal array into Go struct field DeleteOptions.propagationPolicy of type metav1.DeletionPropagation'],
        [{ preconditions: { uid: 7 } }, 'json: cannot unmarshal number into Go struct field DeleteOptions.preconditions.uid of type types.UID'],
        [{ preconditions: [] }, 'json: cannot unmarshal array into Go struct field DeleteOptions.preconditions of type v1.Preconditions'],
      ];
      for (const [body, message] of cases) {
        for (const target of [cmPath('existing'), cmPath('absent')]) {
          const res = await withoutWrites(() => t.del(target, { kind: 'DeleteOptions', apiVersion: 'v1', ...body }));
          expectStatus(res, 400, 'BadRequest');
          expect(res.body.message, JSON.stringify(body)).to.equal(message);
        }
      }
      expect((await t.get(cmPath('existing'))).status).to.equal(200);
    });
  });

  describe('namespaces', () => {
    it('creating in a missing namespace is 404 NotFound for the namespace', async () => {
      const res = await withoutWrites(() => t.post(cmPath('', 'nope'), configMap('orphan')));
      expectStatus(res, 404, 'NotFound');
      expect(res.body.message).to.equal('namespaces "nope" not found');
      expect((await t.get(cmPath('orphan', 'nope'))).status).to.equal(404);
      expect((await t.get('/api/v1/namespaces/nope')).status).to.equal(404);
    });
  });

  // Mocha runs a suite's own tests before its nested suites: this one is in a suite of its own to run last.
  describe('afterwards', () => {
    it('the server still answers and writes, and the first object is untouched', async () => {
      expect((await t.get('/api/v1/namespaces')).status).to.equal(200);
      const created = await t.post(cmPath(), configMap('after-all', { data: { still: 'alive' } }));
      expect(created.status, created.text).to.equal(201);
      expect((await t.get(cmPath('after-all'))).body.data).to.deep.equal({ still: 'alive' });
      expect((await t.get(cmPath('existing'))).body).to.deep.equal(existing);
    });
  });
});
