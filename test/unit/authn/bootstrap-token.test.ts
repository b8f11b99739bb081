import { expect } from 'chai';
import {
  BootstrapTokenAuthenticator, bootstrapGroups, bootstrapTokenExpired, parseRfc3339,
} from '../../../lib/authn/bootstrap-token';
import { AuthResult } from '../../../lib/authn/authenticator';
import { ObjectLookup } from '../../../lib/authn/object-lookup';
import { ApiObject } from '../../../lib/scheme/types';

const NS = 'orch-system';
const TYPE = 'bootstrap.orch.io/token';
const ID = 'abcdef';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;

const b64 = (s: string) => Buffer.from(s).toString('base64');

function secret(data: Record<string, string>, over: Partial<ApiObject> = {}, id = ID): ApiObject {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: NS }, type: TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...over,
  } as ApiObject;
}

const good = (extra: Record<string, string> = {}) =>
  secret({ 'token-id': ID, 'token-secret': SECRET, 'usage-bootstrap-authentication': 'true', ...extra });

/** A lookup over these Secrets, remembering what was asked; `async` answers through promises. */
function lookup(secrets: ApiObject[], async = false): ObjectLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get(namespace, name) {
      asked.push(`${namespace}/${name}`);
      const found = secrets.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name);
      return async ? Promise.resolve(found) : found;
    },
  };
}

const auth = (secrets: ApiObject[], async = false) => new BootstrapTokenAuthenticator(lookup(secrets, async), NS, TYPE);
const answer = async (a: BootstrapTokenAuthenticator, token = TOKEN): Promise<AuthResult> => a.authenticateToken(token);

describe('bootstrap tokens', () => {
  describe('token format', () => {
    it('is <6 of [a-z0-9]>.<16 of [a-z0-9]>; anything else is not a bootstrap token and looks nothing up', async () => {
      const l = lookup([good()]);
      const a = new BootstrapTokenAuthenticator(l, NS, TYPE);
      for (const t of ['ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdefg.0123456789abcdef', 'abcdef.0123456789abcde',
        'abcdef.0123456789abcdef0', 'abcdef0123456789abcdef', 'abcdef:0123456789abcdef', ' abcdef.0123456789abcdef',
        'abcdef.0123456789abcdef\n', 'abcdef.0123456789ABCDEF', '']) {
        expect(a.authenticateToken(t), JSON.stringify(t)).to.deep.equal({ kind: 'none' });
      }
      expect(l.asked).to.deep.equal([]);
    });

    it('names the Secret bootstrap-token-<id> in the system namespace', async () => {
      const l = lookup([]);
      await new BootstrapTokenAuthenticator(l, NS, TYPE).authenticateToken(TOKEN);
      expect(l.asked).to.deep.equal([`${NS}/bootstrap-token-${ID}`]);
    });
  });

  it('authenticates as system:bootstrap:<id> in system:bootstrappers (no uid, no extra)', async () => {
    expect(await answer(auth([good()]))).to.deep.equal({ kind: 'user', user: { name: `system:bootstrap:${ID}`, groups: ['system:bootstrappers'] } });
  });

  it('works the same when the lookup answers through a promise', async () => {
    const r = auth([good()], true).authenticateToken(TOKEN);
    expect(r).to.be.instanceOf(Promise);
    expect(await r).to.deep.equal({ kind: 'user', user: { name: `system:bootstrap:${ID}`, groups: ['system:bootstrappers'] } });
    expect(await answer(auth([good()], true), `${ID}.ffffffffffffffff`)).to.include({ kind: 'invalid' });
  });

  it('is not mine when no such Secret exists (another namespace does not count)', async () => {
    expect(await answer(auth([]))).to.deep.equal({ kind: 'none' });
    expect(await answer(auth([{ ...good(), metadata: { name: `bootstrap-token-${ID}`, namespace: 'default' } }]))).to.deep.equal({ kind: 'none' });
  });

  it('refuses a wrong secret, without the secret in the reason', async () => {
    const r = await answer(auth([good()]), `${ID}.ffffffffffffffff`);
    expect(r).to.deep.equal({ kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} has invalid value for key token-secret` });
    expect(JSON.stringify(r)).not.to.include(SECRET).and.not.to.include('ffffffffffffffff');
  });

  it('refuses a Secret whose token-id is not the token id', async () => {
    const s = secret({ 'token-id': 'zzzzzz', 'token-secret': SECRET, 'usage-bootstrap-authentication': 'true' });
    expect(await answer(auth([s]))).to.deep.include({ kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} has invalid value for key token-id` });
  });

  it('refuses an expired token and one whose expiration is not RFC 3339 (counted as expired)', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    expect(await answer(auth([good({ expiration: future })]))).to.include({ kind: 'user' });
    for (const expiration of [past, 'tomorrow', '2999-01-01', '2999-01-01 00:00:00Z', '2999-01-01T00:00:00', '2999-02-30T00:00:00Z']) {
      expect(await answer(auth([good({ expiration })])), expiration).to.deep.equal({
        kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} has expired`,
      });
    }
  });

  it('refuses a token not marked usage-bootstrap-authentication: "true"', async () => {
    for (const usage of [undefined, 'false', 'True', 'yes', '1', '']) {
      const s = secret({ 'token-id': ID, 'token-secret': SECRET, ...(usage === undefined ? {} : { 'usage-bootstrap-authentication': usage }) });
      expect(await answer(auth([s])), String(usage)).to.deep.equal({
        kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} not marked usage-bootstrap-authentication=true`,
      });
    }
  });

  it('refuses a Secret being deleted (deletionTimestamp set)', async () => {
    const s = good();
    s.metadata = { ...s.metadata, deletionTimestamp: new Date().toISOString(), finalizers: ['x'] } as ApiObject['metadata'];
    expect(await answer(auth([s]))).to.deep.equal({ kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} is deleted and awaiting removal` });
  });

  it('refuses a Secret of another type, or without data', async () => {
    const opaque = { ...good(), type: 'Opaque' };
    const noData = { ...good(), data: undefined } as ApiObject;
    for (const s of [opaque, noData]) {
      expect(await answer(auth([s]))).to.deep.equal({ kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} has invalid type, expected ${TYPE}` });
    }
  });

  it('adds valid auth-extra-groups, sorted and without repeats; an invalid one refuses the token', async () => {
    const r = await answer(auth([good({ 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:a:b-c,system:bootstrappers:worker' })]));
    expect(r).to.deep.equal({
      kind: 'user',
      user: { name: `system:bootstrap:${ID}`, groups: ['system:bootstrappers', 'system:bootstrappers:a:b-c', 'system:bootstrappers:worker'] },
    });
    for (const groups of ['system:masters', 'system:bootstrappers', 'system:bootstrappers:', 'system:bootstrappers:Upper', 'system:bootstrappers:x-', 'system:bootstrappers:ok,', ' system:bootstrappers:ok']) {
      expect(await answer(auth([good({ 'auth-extra-groups': groups })])), groups).to.deep.equal({
        kind: 'invalid', reason: `bootstrap token Secret ${NS}/bootstrap-token-${ID} has invalid value for key auth-extra-groups`,
      });
    }
  });

  describe('bootstrapGroups', () => {
    it('is system:bootstrappers alone without extra groups (absent or empty)', () => {
      expect(bootstrapGroups(good())).to.deep.equal(['system:bootstrappers']);
      expect(bootstrapGroups(good({ 'auth-extra-groups': '' }))).to.deep.equal(['system:bootstrappers']);
    });

    it('takes group names of up to 256 characters after the prefix', () => {
      const long = `system:bootstrappers:${'a'.repeat(256)}`;
      expect(bootstrapGroups(good({ 'auth-extra-groups': long }))).to.deep.equal(['system:bootstrappers', long]);
      expect(bootstrapGroups(good({ 'auth-extra-groups': `${long}b` }))).to.equal(undefined);
    });
  });

  describe('bootstrapTokenExpired', () => {
    const at = (expiration: string) => good({ expiration });
    const now = Date.parse('2030-06-01T12:00:00Z');

    it('is false without an expiration', () => {
      expect(bootstrapTokenExpired(good(), now)).to.equal(false);
      expect(bootstrapTokenExpired(at(''), now)).to.equal(false);
    });

    it('compares RFC 3339 times with their offsets; the instant itself is expired', () => {
      expect(bootstrapTokenExpired(at('2030-06-01T12:00:01Z'), now)).to.equal(false);
      expect(bootstrapTokenExpired(at('2030-06-01T12:00:00Z'), now)).to.equal(true);
      expect(bootstrapTokenExpired(at('2030-06-01T13:30:00+01:00'), now)).to.equal(false);
      expect(bootstrapTokenExpired(at('2030-06-01T12:30:00+01:00'), now)).to.equal(true);
      expect(bootstrapTokenExpired(at('2030-06-01T07:00:01-05:00'), now)).to.equal(false);
      expect(bootstrapTokenExpired(at('2030-06-01T12:00:00.5Z'), now)).to.equal(false);
    });
  });

  describe('parseRfc3339 (Go time.Parse with time.RFC3339)', () => {
    it('reads times with Z or an offset, and fractional seconds', () => {
      expect(parseRfc3339('2030-06-01T12:00:00Z')).to.equal(Date.UTC(2030, 5, 1, 12));
      expect(parseRfc3339('2030-06-01T12:00:00.250Z')).to.equal(Date.UTC(2030, 5, 1, 12, 0, 0, 250));
      expect(parseRfc3339('2030-06-01T12:00:00.123456789+02:00')).to.equal(Date.UTC(2030, 5, 1, 10, 0, 0, 123.456789));
      expect(parseRfc3339('2028-02-29T00:00:00-00:30')).to.equal(Date.UTC(2028, 1, 29, 0, 30));
      expect(new Date(parseRfc3339('0050-01-01T00:00:00Z')!).toISOString()).to.equal('0050-01-01T00:00:00.000Z');
    });

    it('refuses what Go refuses: no zone, no time, a space for T, lower case, out-of-range fields', () => {
      for (const s of ['2030-06-01', '2030-06-01T12:00:00', '2030-06-01 12:00:00Z', '2030-06-01t12:00:00Z', '2030-06-01T12:00:00z',
        '2030-13-01T00:00:00Z', '2030-00-01T00:00:00Z', '2030-02-29T00:00:00Z', '2030-04-31T00:00:00Z', '2030-06-01T24:00:00Z',
        '2030-06-01T12:60:00Z', '2030-06-01T12:00:60Z', '2030-06-01T12:00Z', '2030-06-01T12:00:00+0100', '2030-06-01T12:00:00+24:00',
        '+2030-06-01T12:00:00Z', 'Sat, 01 Jun 2030 12:00:00 GMT', '1911526400', '']) {
        expect(parseRfc3339(s), s).to.equal(undefined);
      }
    });
  });
});
