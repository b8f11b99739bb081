/**
 * ConfigMap and Secret rules over HTTPS against a real etcd: one valid object per ConfigMap
 * feature and per Secret type, and for every rule an invalid variant answered 422 with the
 * cause's field path and reason, leaving the store unchanged (same list resourceVersion).
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';

const NS = 'config-kinds';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const secretPath = (name = '') => `/api/v1/namespaces/${NS}/secrets${name ? `/${name}` : ''}`;

type Body = Record<string, unknown>;
interface Cause { field: string; reason: string }

const configMap = (name: string, fields: Body = {}, metadata: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, ...fields });
const secret = (name: string, fields: Body = {}, metadata: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, ...metadata }, ...fields });

/** The 422 causes as {field, reason}, to compare with the expected ones. */
function expectInvalid(res: HttpResponse, kind: string, causes: Cause[]): void {
  expect(res.status, res.text).to.equal(422);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
  expect(res.body.details.kind).to.equal(kind);
  expect(res.body.details.causes.map((c: Cause) => ({ field: c.field, reason: c.reason }))).to.have.deep.members(causes);
}

describe('ConfigMap and Secret rules', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  /**
   * Runs a write that must fail and checks that no object of the collection changed. (Not the
   * list's resourceVersion: that is etcd's revision, which other resources' writes move too.)
   */
  async function rejected(collection: string, write: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const versions = async () => ((await t.get(collection)).body.items as Body[])
      .map((i) => `${(i.metadata as Body).name}@${(i.metadata as Body).resourceVersion}`);
    const before = await versions();
    const res = await write();
    expect(await versions(), 'the failed write changed the store').to.deep.equal(before);
    return res;
  }

  describe('ConfigMap', () => {
    const valid: Array<[string, Body]> = [
      ['string data with every allowed key character', { data: { 'app.properties': 'a=1', KEY_NAME: 'x', 'key-name': 'y', '.hidden': 'z' } }],
      ['binary data (non-UTF-8 bytes)', { binaryData: { blob: b64(Buffer.from([0xff, 0xfe, 0x00, 0x80])) } }],
      ['data and binaryData with distinct keys', { data: { a: '1' }, binaryData: { b: b64('2') } }],
      ['immutable', { data: { a: '1' }, immutable: true }],
      ['no data at all', {}],
      ['non-ASCII UTF-8 text in data', { data: { greeting: 'héllo wörld ✓ 😀' } }],
      ['exactly 1 MiB of values', { data: { big: 'x'.repeat(1024 * 1024 - 1) }, binaryData: { one: b64('y') } }],
    ];
    for (const [what, fields] of valid) {
      it(`accepts ${what}`, async () => {
        const name = `cm-valid-${valid.findIndex(([w]) => w === what)}`;
        const res = await t.post(cmPath(), configMap(name, fields));
        expect(res.status, res.text).to.equal(201);
        for (const [k, v] of Object.entries(fields)) expect(res.body[k]).to.deep.equal(v);
      });
    }

    const invalid: Array<[string, Body, Cause[]]> = [
      ['a key with a space', { data: { 'a b': '1' } }, [{ field: 'data[a b]', reason: 'FieldValueInvalid' }]],
      ['the key ".."', { data: { '..': '1' } }, [{ field: 'data[..]', reason: 'FieldValueInvalid' }]],
      ['a key starting with ".."', { data: { '..x': '1' } }, [{ field: 'data[..x]', reason: 'FieldValueInvalid' }]],
      ['a key longer than 253 characters', { data: { [`k${'x'.repeat(253)}`]: '1' } }, [{ field: `data[k${'x'.repeat(253)}]`, reason: 'FieldValueInvalid' }]],
      ['a bad binaryData key', { binaryData: { 'x/y': b64('1') } }, [{ field: 'binaryData[x/y]', reason: 'FieldValueInvalid' }]],
      ['a key in both data and binaryData', { data: { k: '1' }, binaryData: { k: b64('1') } }, [{ field: 'data[k]', reason: 'FieldValueInvalid' }]],
      ['a data value that is not UTF-8 (lone surrogate)', { data: { k: 'a\ud800b' } }, [{ field: 'data[k]', reason: 'FieldValueInvalid' }]],
      ['more than 1 MiB of values', { data: { big: 'x'.repeat(1024 * 1024) }, binaryData: { one: b64('y') } }, [{ field: '', reason: 'FieldValueTooLong' }]],
    ];
    for (const [what, fields, causes] of invalid) {
      it(`rejects ${what} (422) and stores nothing`, async () => {
        const res = await rejected(cmPath(), () => t.post(cmPath(), configMap('cm-invalid', fields)));
        expectInvalid(res, 'ConfigMap', causes);
        expect((await t.get(cmPath('cm-invalid'))).status).to.equal(404);
      });
    }

    it('names the duplicate key in the message as Kubernetes does', async () => {
      const res = await t.post(cmPath(), configMap('cm-dup', { data: { k: '1' }, binaryData: { k: b64('1') } }));
      expect(res.body.message).to.equal('ConfigMap "cm-dup" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData');
    });

    describe('immutable', () => {
      const name = 'cm-frozen';
      let stored: Body;
      before(async () => {
        const res = await t.post(cmPath(), configMap(name, { data: { a: '1' }, binaryData: { b: b64('2') }, immutable: true }));
        expect(res.status, res.text).to.equal(201);
        stored = res.body;
      });

      const changes: Array<[string, (o: Body) => Body, Cause[]]> = [
        ['data', (o) => ({ ...o, data: { a: '2' } }), [{ field: 'data', reason: 'FieldValueForbidden' }]],
        ['binaryData', (o) => ({ ...o, binaryData: {} }), [{ field: 'binaryData', reason: 'FieldValueForbidden' }]],
        ['immutable back to false', (o) => ({ ...o, immutable: false }), [{ field: 'immutable', reason: 'FieldValueForbidden' }]],
        ['immutable unset', (o) => { const { immutable: _gone, ...rest } = o; return rest; }, [{ field: 'immutable', reason: 'FieldValueForbidden' }]],
      ];
      for (const [what, change, causes] of changes) {
        it(`rejects changing ${what} (422), leaving the object as it was`, async () => {
          const res = await rejected(cmPath(), () => t.put(cmPath(name), change(stored)));
          expectInvalid(res, 'ConfigMap', causes);
          expect((await t.get(cmPath(name))).body).to.deep.equal(stored);
        });
      }

      it('still lets metadata change', async () => {
        const res = await t.put(cmPath(name), { ...stored, metadata: { ...(stored.metadata as Body), labels: { tier: 'config' } } });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.metadata.labels).to.deep.equal({ tier: 'config' });
        expect(res.body.data).to.deep.equal({ a: '1' });
      });
    });

    it('a mutable ConfigMap changes its data and can become immutable', async () => {
      const created = (await t.post(cmPath(), configMap('cm-thaw', { data: { a: '1' }, immutable: false }))).body;
      const res = await t.put(cmPath('cm-thaw'), { ...created, data: { a: '2' }, immutable: true });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ immutable: true });
      expect(res.body.data).to.deep.equal({ a: '2' });
    });
  });

  describe('Secret', () => {
    const cert = b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const valid: Array<[string, Body, Body?]> = [
      ['Opaque (the default type)', { data: { user: b64('admin') } }],
      ['orch.io/service-account-token with its account annotation', { type: 'orch.io/service-account-token' },
        { annotations: { 'orch.io/service-account.name': 'builder' } }],
      ['bootstrap.orch.io/token', {
        type: 'bootstrap.orch.io/token',
        stringData: {
          'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: '2030-01-01T00:00:00Z',
          'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', 'auth-extra-groups': 'system:bootstrappers:workers',
          description: 'joins workers',
        },
      }],
      ['kubernetes.io/dockerconfigjson', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{"r.example":{"auth":"eDp5"}}}') } }],
      ['kubernetes.io/dockercfg', { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"r.example":{"auth":"eDp5"}}') } }],
      ['kubernetes.io/tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': cert, 'tls.key': b64('key') } }],
      ['kubernetes.io/basic-auth with only a username', { type: 'kubernetes.io/basic-auth', data: { username: b64('admin') } }],
      ['kubernetes.io/basic-auth with an empty password', { type: 'kubernetes.io/basic-auth', data: { password: '' } }],
      ['kubernetes.io/ssh-auth', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('-----BEGIN OPENSSH PRIVATE KEY-----') } }],
      ['a type of the user\'s own', { type: 'example.com/widget', data: { anything: b64('goes') } }],
      ['immutable', { data: { a: b64('1') }, immutable: true }],
      ['exactly 1 MiB of values', { data: { big: b64(Buffer.alloc(1024 * 1024 - 1)), one: b64('y') } }],
    ];
    valid.forEach(([what, fields, metadata], i) => {
      it(`accepts ${what}`, async () => {
        const name = what.startsWith('bootstrap') ? 'bootstrap-token-abcdef' : `secret-valid-${i}`;
        const res = await t.post(secretPath(), secret(name, fields, metadata));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.type).to.equal(fields.type ?? 'Opaque');
        expect(res.body).not.to.have.property('stringData');
      });
    });

    it('merges stringData into data (overriding a key) and never returns it', async () => {
      const res = await t.post(secretPath(), secret('secret-merge', { data: { a: b64('old'), b: b64('kept') }, stringData: { a: 'new', c: 'ünïcode' } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.data).to.deep.equal({ a: b64('new'), b: b64('kept'), c: b64('ünïcode') });
      expect(res.body).not.to.have.property('stringData');
      const got = await t.get(secretPath('secret-merge'));
      expect(got.body.data).to.deep.equal(res.body.data);
      expect(got.body).not.to.have.property('stringData');
      const listed = (await t.get(secretPath())).body.items.find((s: Body) => (s.metadata as Body).name === 'secret-merge');
      expect(listed).not.to.have.property('stringData');
      const updated = await t.put(secretPath('secret-merge'), { ...got.body, stringData: { b: 'changed' } });
      expect(updated.body.data).to.deep.equal({ a: b64('new'), b: b64('changed'), c: b64('ünïcode') });
    });

    const token = (data: Body, name = 'bootstrap-token-abcdef') => [name, { type: 'bootstrap.orch.io/token', stringData: data }] as const;
    const invalid: Array<[string, string, Body, Cause[], Body?]> = [
      ['a bad data key', 'secret-bad', { data: { 'a b': b64('1') } }, [{ field: 'data[a b]', reason: 'FieldValueInvalid' }]],
      ['more than 1 MiB of values', 'secret-bad', { data: { big: b64(Buffer.alloc(1024 * 1024)), one: b64('y') } }, [{ field: 'data', reason: 'FieldValueTooLong' }]],
      ['a bad stringData key (checked after the merge)', 'secret-bad', { stringData: { 'a/b': 'x' } }, [{ field: 'data[a/b]', reason: 'FieldValueInvalid' }]],
      ['a service-account token without its account annotation', 'secret-bad', { type: 'orch.io/service-account-token' },
        [{ field: 'metadata.annotations[orch.io/service-account.name]', reason: 'FieldValueRequired' }]],
      ['a dockerconfigjson Secret without .dockerconfigjson', 'secret-bad', { type: 'kubernetes.io/dockerconfigjson', data: {} },
        [{ field: 'data[.dockerconfigjson]', reason: 'FieldValueRequired' }]],
      ['a dockerconfigjson Secret whose JSON does not parse', 'secret-bad', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":') } },
        [{ field: 'data[.dockerconfigjson]', reason: 'FieldValueInvalid' }]],
      ['a dockerconfigjson Secret whose JSON is no object', 'secret-bad', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[1]') } },
        [{ field: 'data[.dockerconfigjson]', reason: 'FieldValueInvalid' }]],
      ['a dockercfg Secret without .dockercfg', 'secret-bad', { type: 'kubernetes.io/dockercfg', data: { other: b64('{}') } },
        [{ field: 'data[.dockercfg]', reason: 'FieldValueRequired' }]],
      ['a tls Secret without tls.key', 'secret-bad', { type: 'kubernetes.io/tls', data: { 'tls.crt': cert } }, [{ field: 'data[tls.key]', reason: 'FieldValueRequired' }]],
      ['a tls Secret without either key', 'secret-bad', { type: 'kubernetes.io/tls' },
        [{ field: 'data[tls.crt]', reason: 'FieldValueRequired' }, { field: 'data[tls.key]', reason: 'FieldValueRequired' }]],
      ['a basic-auth Secret without username or password', 'secret-bad', { type: 'kubernetes.io/basic-auth', data: { user: b64('x') } },
        [{ field: 'data[username]', reason: 'FieldValueRequired' }, { field: 'data[password]', reason: 'FieldValueRequired' }]],
      ['an ssh-auth Secret with an empty private key', 'secret-bad', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } },
        [{ field: 'data[ssh-privatekey]', reason: 'FieldValueRequired' }]],
      ['a bootstrap token without token-secret', ...token({ 'token-id': 'abcdef' }), [{ field: 'data[token-secret]', reason: 'FieldValueRequired' }]],
      ['a bootstrap token without token-id', ...token({ 'token-secret': '0123456789abcdef' }), [{ field: 'data[token-id]', reason: 'FieldValueRequired' }]],
      ['a bootstrap token with an upper-case token-id', ...token({ 'token-id': 'ABCDEF', 'token-secret': '0123456789abcdef' }, 'bootstrap-token-x'),
        [{ field: 'data[token-id]', reason: 'FieldValueInvalid' }]],
      ['a bootstrap token with a short token-secret', ...token({ 'token-id': 'abcdef', 'token-secret': '0123' }), [{ field: 'data[token-secret]', reason: 'FieldValueInvalid' }]],
      ['a bootstrap token whose name is not bootstrap-token-<id>', ...token({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' }, 'bootstrap-token-zzzzzz'),
        [{ field: 'metadata.name', reason: 'FieldValueInvalid' }]],
      ['a bootstrap token with a bad expiration', ...token({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: 'tomorrow' }),
        [{ field: 'data[expiration]', reason: 'FieldValueInvalid' }]],
      ['a bootstrap token with an extra group outside system:bootstrappers:', ...token({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'auth-extra-groups': 'system:masters' }),
        [{ field: 'data[auth-extra-groups]', reason: 'FieldValueInvalid' }]],
    ];
    for (const [what, name, fields, causes, metadata] of invalid) {
      it(`rejects ${what} (422) and stores nothing`, async () => {
        const before = (await t.get(secretPath(name))).status;
        const res = await rejected(secretPath(), () => t.post(secretPath(), secret(`${name}`, fields, metadata)));
        expectInvalid(res, 'Secret', causes);
        expect((await t.get(secretPath(name))).status).to.equal(before);
      });
    }

    it('redacts the contents of a bad docker config in the message', async () => {
      const res = await t.post(secretPath(), secret('secret-redacted', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":x}') } }));
      expect(res.body.message).to.equal('Secret "secret-redacted" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": '
        + "invalid character 'x' looking for beginning of value");
    });

    describe('updates', () => {
      let opaque: Body;
      let frozen: Body;
      before(async () => {
        opaque = (await t.post(secretPath(), secret('secret-typed', { data: { a: b64('1') } }))).body;
        frozen = (await t.post(secretPath(), secret('secret-frozen', { data: { a: b64('1') }, immutable: true }))).body;
      });

      const cases: Array<[string, () => Body, Cause[]]> = [
        ['a type change', () => ({ ...opaque, type: 'kubernetes.io/basic-auth', data: { username: b64('u') } }), [{ field: 'type', reason: 'FieldValueInvalid' }]],
        ['data of an immutable Secret', () => ({ ...frozen, data: { a: b64('2') } }), [{ field: 'data', reason: 'FieldValueForbidden' }]],
        ['stringData on an immutable Secret', () => ({ ...frozen, stringData: { b: 'x' } }), [{ field: 'data', reason: 'FieldValueForbidden' }]],
        ['immutable back to false', () => ({ ...frozen, immutable: false }), [{ field: 'immutable', reason: 'FieldValueForbidden' }]],
      ];
      for (const [what, body, causes] of cases) {
        it(`rejects ${what} (422), leaving the Secret as it was`, async () => {
          const name = ((body().metadata as Body).name) as string;
          const stored = (await t.get(secretPath(name))).body;
          const res = await rejected(secretPath(), () => t.put(secretPath(name), body()));
          expectInvalid(res, 'Secret', causes);
          expect((await t.get(secretPath(name))).body).to.deep.equal(stored);
        });
      }

      it('an immutable Secret still takes metadata changes', async () => {
        const res = await t.put(secretPath('secret-frozen'), { ...frozen, metadata: { ...(frozen.metadata as Body), annotations: { note: 'x' } } });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.metadata.annotations).to.deep.equal({ note: 'x' });
      });
    });
  });

  describe('kubernetes flavor token types', () => {
    let k: TestServer;
    before(async () => {
      k = await startTestServer(['--flavor=kubernetes']);
      expect((await k.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    });
    after(async () => { await k?.stop(); });

    it('requires kubernetes.io/service-account.name on a kubernetes.io/service-account-token Secret', async () => {
      const bad = await k.post(secretPath(), secret('sa-token', { type: 'kubernetes.io/service-account-token' }));
      expectInvalid(bad, 'Secret', [{ field: 'metadata.annotations[kubernetes.io/service-account.name]', reason: 'FieldValueRequired' }]);
      const ok = await k.post(secretPath(), secret('sa-token', { type: 'kubernetes.io/service-account-token' },
        { annotations: { 'kubernetes.io/service-account.name': 'default' } }));
      expect(ok.status, ok.text).to.equal(201);
    });

    it('checks bootstrap.kubernetes.io/token Secrets', async () => {
      const bad = await k.post(secretPath(), secret('bootstrap-token-abcdef', { type: 'bootstrap.kubernetes.io/token', stringData: { 'token-id': 'abcdef' } }));
      expectInvalid(bad, 'Secret', [{ field: 'data[token-secret]', reason: 'FieldValueRequired' }]);
    });
  });
});
