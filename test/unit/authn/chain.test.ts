import { expect } from 'chai';
import type { Context } from 'koa';
import { AuthenticationChain } from '../../../lib/authn/chain';
import {
  AuthResult, AuthnRequest, MaybePromise, NOT_MINE, RequestAuthenticator, authenticated, invalid,
} from '../../../lib/authn/authenticator';
import { authnRequestOf } from '../../../lib/authn/request';

function request(headers: Record<string, string> = {}): AuthnRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return authnRequestOf({ req: { headers: lower, rawHeaders: Object.entries(headers).flat() } } as unknown as Context);
}

/** An authenticator answering `result` (through a promise when `async`), counting its calls. */
function fixed(name: string, result: AuthResult | Error, async = false): RequestAuthenticator & { calls: number } {
  const a = {
    name,
    calls: 0,
    authenticate(): MaybePromise<AuthResult> {
      a.calls++;
      if (result instanceof Error) {
        if (async) return Promise.reject(result);
        throw result;
      }
      return async ? Promise.resolve(result) : result;
    },
  };
  return a;
}

const alice = authenticated({ name: 'alice', uid: 'a-1', groups: ['dev'], extra: { scopes: ['x'] } });
const bob = authenticated({ name: 'bob', groups: [] });

describe('authentication chain', () => {
  for (const async of [false, true]) {
    describe(async ? 'authenticators answering through promises' : 'synchronous authenticators', () => {
      it('the first user wins; later authenticators are not asked', async () => {
        const later = fixed('later', bob, async);
        const chain = new AuthenticationChain([fixed('none', NOT_MINE, async), fixed('first', alice, async), later], true);
        expect(await chain.authenticate(request())).to.deep.equal({
          user: { name: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } }, authenticator: 'first',
        });
        expect(later.calls).to.equal(0);
      });

      it('an invalid credential does not stop the chain: a later user wins', async () => {
        const chain = new AuthenticationChain([fixed('x509', invalid('bad cert'), async), fixed('bearer', bob, async)], true);
        expect(await chain.authenticate(request())).to.deep.equal({ user: { name: 'bob', groups: ['system:authenticated'] }, authenticator: 'bearer' });
      });

      it('an invalid credential and no later user fail, even with anonymous enabled', async () => {
        for (const anonymous of [true, false]) {
          const chain = new AuthenticationChain([fixed('x509', invalid('bad cert'), async), fixed('bearer', NOT_MINE, async)], anonymous);
          expect(await chain.authenticate(request())).to.deep.equal({ failure: { kind: 'invalid', reason: 'bad cert' } });
        }
      });

      it('several failures are all reported, the first client message kept', async () => {
        const chain = new AuthenticationChain([
          fixed('a', invalid('first'), async), fixed('b', invalid('second', 'token expired'), async), fixed('c', invalid('third', 'other'), async),
        ], true);
        expect(await chain.authenticate(request())).to.deep.equal({ failure: { kind: 'invalid', reason: 'first; second; third', clientMessage: 'token expired' } });
      });

      it('a thrown or rejected authenticator counts as invalid, named in the reason', async () => {
        const chain = new AuthenticationChain([fixed('boom', new Error('lookup failed'), async), fixed('next', NOT_MINE, async)], true);
        expect(await chain.authenticate(request())).to.deep.equal({ failure: { kind: 'invalid', reason: 'boom: lookup failed' } });
        const rescued = new AuthenticationChain([fixed('boom', new Error('lookup failed'), async), fixed('next', bob, async)], true);
        expect(await rescued.authenticate(request())).to.deep.include({ authenticator: 'next' });
      });

      it('anonymous only when no authenticator saw a credential', async () => {
        const chain = new AuthenticationChain([fixed('x509', NOT_MINE, async), fixed('bearer', NOT_MINE, async)], true);
        expect(await chain.authenticate(request())).to.deep.equal({
          user: { name: 'system:anonymous', groups: ['system:unauthenticated'] }, authenticator: 'anonymous',
        });
      });

      it('without anonymous, no credential at all fails', async () => {
        const chain = new AuthenticationChain([fixed('x509', NOT_MINE, async)], false);
        expect(await chain.authenticate(request())).to.deep.equal({ failure: { kind: 'invalid', reason: 'no credentials' } });
      });
    });
  }

  it('answers synchronously when every authenticator does (no promise on the hot path)', () => {
    const out = new AuthenticationChain([fixed('a', NOT_MINE), fixed('b', alice)], true).authenticate(request());
    expect(out).not.to.be.instanceOf(Promise);
  });

  it('mixes synchronous and asynchronous answers in order', async () => {
    const order: string[] = [];
    const step = (name: string, r: AuthResult, async: boolean): RequestAuthenticator => ({
      name, authenticate: () => { order.push(name); return async ? Promise.resolve(r) : r; },
    });
    const chain = new AuthenticationChain([step('s1', NOT_MINE, false), step('a1', invalid('x'), true), step('s2', NOT_MINE, false), step('a2', bob, true)], true);
    expect(await chain.authenticate(request())).to.deep.include({ authenticator: 'a2' });
    expect(order).to.deep.equal(['s1', 'a1', 's2', 'a2']);
  });

  describe('system:authenticated', () => {
    const once = async (groups: string[], name = 'u') => {
      const out = await new AuthenticationChain([fixed('a', authenticated({ name, groups }))], true).authenticate(request());
      return 'user' in out ? out.user.groups : out;
    };

    it('is added once to every authenticated user', async () => {
      expect(await once([])).to.deep.equal(['system:authenticated']);
      expect(await once(['a', 'b'])).to.deep.equal(['a', 'b', 'system:authenticated']);
      expect(await once(['system:authenticated', 'a'])).to.deep.equal(['system:authenticated', 'a']);
    });

    it('is not added to a user already in system:unauthenticated, nor to one named system:anonymous', async () => {
      expect(await once(['system:unauthenticated'])).to.deep.equal(['system:unauthenticated']);
      expect(await once([], 'system:anonymous')).to.deep.equal([]);
    });

    it('does not change the authenticator\'s own user object', async () => {
      const user = { name: 'u', groups: ['g'] };
      await new AuthenticationChain([fixed('a', authenticated(user))], true).authenticate(request());
      expect(user.groups).to.deep.equal(['g']);
    });
  });

  describe('the Authorization header', () => {
    it('is removed once a user is authenticated, so nothing behind the chain sees the credential', async () => {
      const req = request({ Authorization: 'Bearer secret' });
      await new AuthenticationChain([fixed('bearer', bob)], true).authenticate(req);
      expect(req.header('authorization')).to.equal(undefined);
      expect(req.headerNames()).not.to.include('authorization');
    });

    it('stays when authentication failed or fell to anonymous', async () => {
      const failed = request({ Authorization: 'Bearer secret' });
      await new AuthenticationChain([fixed('bearer', invalid('no'))], true).authenticate(failed);
      expect(failed.header('authorization')).to.equal('Bearer secret');
      const anonymous = request({ Authorization: 'Basic xyz' });
      await new AuthenticationChain([fixed('bearer', NOT_MINE)], true).authenticate(anonymous);
      expect(anonymous.header('authorization')).to.equal('Basic xyz');
    });
  });
});
