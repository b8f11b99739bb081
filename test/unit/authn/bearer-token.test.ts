import { expect } from 'chai';
import type { Context } from 'koa';
import { BearerTokenAuthenticator, authenticateToken, bearerToken } from '../../../lib/authn/bearer-token';
import { audienceAgnostic, intersectAudiences } from '../../../lib/authn/audiences';
import {
  AuthResult, AuthnRequest, MaybePromise, NOT_MINE, TokenAuthenticator, authenticated, invalid,
} from '../../../lib/authn/authenticator';
import { authnRequestOf } from '../../../lib/authn/request';

function request(authorization?: string): AuthnRequest {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return authnRequestOf({ req: { headers, rawHeaders: Object.entries(headers).flat() } } as unknown as Context);
}

/** A token authenticator that knows one token, recording the audiences it is asked for. */
function knows(name: string, token: string, result: AuthResult, async = false): TokenAuthenticator & { asked: string[][] } {
  const a = {
    name,
    asked: [] as string[][],
    authenticateToken(t: string, audiences: readonly string[]): MaybePromise<AuthResult> {
      a.asked.push([...audiences]);
      const r = t === token ? result : NOT_MINE;
      return async ? Promise.resolve(r) : r;
    },
  };
  return a;
}

const alice = { name: 'alice', groups: ['dev'] };

describe('bearer tokens', () => {
  describe('bearerToken (the Authorization header as Kubernetes reads it)', () => {
    const cases: [string | undefined, string | undefined][] = [
      ['Bearer abc', 'abc'],
      ['bearer abc', 'abc'],
      ['BEARER abc', 'abc'],
      ['  Bearer abc  ', 'abc'],
      ['Bearer abc def', 'abc'],
      ['Bearer a.b-c_d~e+f/g=', 'a.b-c_d~e+f/g='],
      ['Bearer', undefined],
      ['Bearer ', undefined],
      ['Bearer  abc', undefined], // an empty token before the extra space: no token (kube warns)
      ['Bearer\tabc', undefined],
      ['Basic xyz', undefined],
      ['Basic YWxpY2U6c2VjcmV0', undefined],
      ['Token abc', undefined],
      ['Bearerabc', undefined],
      ['abc', undefined],
      ['', undefined],
      [undefined, undefined],
    ];
    for (const [header, token] of cases) {
      it(`${JSON.stringify(header)} -> ${token === undefined ? 'no bearer token' : JSON.stringify(token)}`, () => {
        expect(bearerToken(header)).to.equal(token);
      });
    }
  });

  describe('authenticateToken (the token authenticators in order)', () => {
    for (const async of [false, true]) {
      const mode = async ? ' (promises)' : '';
      it(`the first user wins${mode}`, async () => {
        const last = knows('last', 't', authenticated({ name: 'other', groups: [] }), async);
        const r = await authenticateToken([knows('a', 'x', authenticated(alice), async), knows('b', 't', authenticated(alice), async), last], 't', ['api']);
        expect(r).to.deep.equal({ kind: 'user', user: alice });
        expect(last.asked).to.deep.equal([]);
      });

      it(`invalid answers do not stop the search${mode}`, async () => {
        const r = await authenticateToken([knows('a', 't', invalid('expired'), async), knows('b', 't', authenticated(alice), async)], 't', ['api']);
        expect(r).to.deep.equal({ kind: 'user', user: alice });
      });

      it(`a token nobody accepts is invalid, with every reason for the log and the first client message${mode}`, async () => {
        expect(await authenticateToken([knows('a', 'x', authenticated(alice), async)], 't', ['api']))
          .to.deep.equal({ kind: 'invalid', reason: 'invalid bearer token' });
        expect(await authenticateToken([knows('a', 't', invalid('expired'), async), knows('b', 't', invalid('revoked', 'token revoked'), async)], 't', ['api']))
          .to.deep.equal({ kind: 'invalid', reason: 'invalid bearer token; expired; revoked', clientMessage: 'token revoked' });
      });
    }

    it('a token authenticator that throws or rejects is a failure of that one only', async () => {
      const throws: TokenAuthenticator = { name: 'throws', authenticateToken: () => { throw new Error('bug'); } };
      const rejects: TokenAuthenticator = { name: 'rejects', authenticateToken: () => Promise.reject(new Error('down')) };
      expect(await authenticateToken([throws, rejects, knows('c', 't', authenticated(alice))], 't', [])).to.deep.equal({ kind: 'user', user: alice });
      expect(await authenticateToken([throws, rejects], 't', [])).to.deep.equal({ kind: 'invalid', reason: 'invalid bearer token; throws: bug; rejects: down' });
    });

    it('never puts the token in a reason', async () => {
      const r = await authenticateToken([knows('a', 'x', authenticated(alice))], 'very-secret-token', ['api']);
      expect(JSON.stringify(r)).not.to.include('very-secret-token');
    });
  });

  describe('BearerTokenAuthenticator', () => {
    const apiAudiences = ['https://orch.default.svc'];

    it('is not mine without a bearer token (no header, Basic, "Bearer" alone)', async () => {
      const tokens = knows('a', 't', authenticated(alice));
      const a = new BearerTokenAuthenticator([tokens], apiAudiences);
      for (const h of [undefined, 'Basic xyz', 'Bearer', 'Bearer ']) expect(await a.authenticate(request(h)), String(h)).to.deep.equal({ kind: 'none' });
      expect(tokens.asked).to.deep.equal([]);
    });

    it('asks the token authenticators for the server\'s audiences', async () => {
      const tokens = knows('a', 't', authenticated(alice));
      expect(await new BearerTokenAuthenticator([tokens], apiAudiences).authenticate(request('bearer t'))).to.deep.equal({ kind: 'user', user: alice });
      expect(tokens.asked).to.deep.equal([apiAudiences]);
    });

    it('an unknown bearer token is invalid', async () => {
      expect(await new BearerTokenAuthenticator([knows('a', 'x', authenticated(alice))], apiAudiences).authenticate(request('Bearer t')))
        .to.deep.equal({ kind: 'invalid', reason: 'invalid bearer token' });
    });

    it('refuses a token valid only for other audiences', async () => {
      const other = knows('sa', 't', authenticated(alice, ['https://elsewhere']));
      expect(await new BearerTokenAuthenticator([other], apiAudiences).authenticate(request('Bearer t'))).to.include({ kind: 'invalid' });
      const ours = knows('sa', 't', authenticated(alice, ['https://elsewhere', apiAudiences[0]]));
      expect(await new BearerTokenAuthenticator([ours], apiAudiences).authenticate(request('Bearer t'))).to.include({ kind: 'user' });
    });
  });

  describe('audiences', () => {
    it('intersectAudiences keeps the wanted order', () => {
      expect(intersectAudiences(['c', 'a', 'b'], ['a', 'b', 'z'])).to.deep.equal(['a', 'b']);
      expect(intersectAudiences(['b', 'a'], ['a', 'b'])).to.deep.equal(['b', 'a']);
      expect(intersectAudiences([], ['a'])).to.deep.equal([]);
    });

    describe('audienceAgnostic (WrapAudienceAgnosticToken)', () => {
      const api = ['api-1', 'api-2'];

      it('is not mine, without asking, when none of the asked audiences is the server\'s', async () => {
        const inner = knows('file', 't', authenticated(alice));
        expect(await audienceAgnostic(inner, api).authenticateToken('t', ['other'])).to.deep.equal({ kind: 'none' });
        expect(inner.asked).to.deep.equal([]);
      });

      it('answers the asked audiences that are the server\'s, in the asked order', async () => {
        for (const async of [false, true]) {
          const wrapped = audienceAgnostic(knows('file', 't', authenticated(alice), async), api);
          expect(await wrapped.authenticateToken('t', ['api-2', 'other', 'api-1'])).to.deep.equal({ kind: 'user', user: alice, audiences: ['api-2', 'api-1'] });
          expect(await wrapped.authenticateToken('t', api)).to.deep.equal({ kind: 'user', user: alice, audiences: api });
        }
      });

      it('passes not-mine and invalid answers through', async () => {
        expect(await audienceAgnostic(knows('file', 'x', authenticated(alice)), api).authenticateToken('t', api)).to.deep.equal({ kind: 'none' });
        expect(await audienceAgnostic(knows('file', 't', invalid('no')), api).authenticateToken('t', api)).to.deep.equal({ kind: 'invalid', reason: 'no' });
      });

      it('refuses an inner authenticator that answers audiences after all', async () => {
        const r = await audienceAgnostic(knows('file', 't', authenticated(alice, ['api-1'])), api).authenticateToken('t', api);
        expect(r).to.deep.equal({ kind: 'invalid', reason: 'file: an audience-agnostic authenticator answered audiences' });
      });
    });
  });
});
