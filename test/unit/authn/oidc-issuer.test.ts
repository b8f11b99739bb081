import { expect } from 'chai';
import { jwksUriOf } from '../../../lib/authn/oidc-issuer';

describe('jwksUriOf', () => {
  const issuer = 'https://idp.example.com/realm';
  it('answers the jwks_uri of a document naming exactly the issuer', () => {
    expect(jwksUriOf({ issuer, jwks_uri: 'https://keys.example.com/jwks' }, issuer)).to.equal('https://keys.example.com/jwks');
  });
  const refused: [string, unknown, RegExp][] = [
    ['another issuer', { issuer: 'https://idp.example.com', jwks_uri: 'https://k/j' }, /issuer did not match the issuer returned by provider, expected "https:\/\/idp\.example\.com\/realm" got "https:\/\/idp\.example\.com"/],
    ['the issuer with a trailing slash', { issuer: `${issuer}/`, jwks_uri: 'https://k/j' }, /issuer did not match/],
    ['no issuer', { jwks_uri: 'https://k/j' }, /issuer did not match/],
    ['a document that is not an object', 'text', /issuer did not match/],
    ['no jwks_uri', { issuer }, /has no https jwks_uri/],
    ['an http jwks_uri', { issuer, jwks_uri: 'http://keys.example.com/jwks' }, /has no https jwks_uri/],
    ['a jwks_uri that is no URL', { issuer, jwks_uri: 'keys' }, /has no https jwks_uri/],
  ];
  for (const [what, doc, reason] of refused) {
    it(`refuses a document with ${what}`, () => expect(() => jwksUriOf(doc, issuer)).to.throw(reason));
  }
});
