/**
 * What the aggregation proxy sends on, as kube-aggregator 1.32 builds it: the query re-encoded as
 * Go's url.Values (ParseQuery, then Encode: keys sorted, QueryEscape), and the X-Remote-Extra-*
 * key escaped as client-go's headerKeyEscape.
 */
import { expect } from 'chai';
import { goQuery, headerKeyEscape } from '../../../lib/aggregation/proxy';

describe('aggregation proxy: the request sent to an extension server', () => {
  it('re-encodes the query with its keys sorted, values in order, spaces as +', () => {
    expect(goQuery('')).to.equal('');
    expect(goQuery('watch=true&resourceVersion=5')).to.equal('?resourceVersion=5&watch=true');
    expect(goQuery('b=2&a=1&a=0')).to.equal('?a=1&a=0&b=2');
    expect(goQuery('labelSelector=app%20in%20(a,b)')).to.equal('?labelSelector=app+in+%28a%2Cb%29');
    expect(goQuery('fieldSelector=metadata.name%3Dx&x=a+b')).to.equal('?fieldSelector=metadata.name%3Dx&x=a+b');
    expect(goQuery('flag')).to.equal('?flag=');
    expect(goQuery('t=~-._*')).to.equal('?t=~-._%2A');
  });

  it('drops what Go\'s ParseQuery drops: pairs with a semicolon, malformed escapes, empty pairs', () => {
    expect(goQuery('a=1;b=2&c=3')).to.equal('?c=3');
    expect(goQuery('a=%zz&b=1')).to.equal('?b=1');
    expect(goQuery('&&a=1&')).to.equal('?a=1');
    expect(goQuery('a=%zz')).to.equal('');
  });

  it('keeps non-ASCII bytes as their UTF-8 escapes', () => {
    expect(goQuery('n=%C3%A9')).to.equal('?n=%C3%A9');
    expect(goQuery('n=é')).to.equal('?n=%C3%A9');
  });

  it('escapes an extra key as client-go: token characters kept, others and % as %XX', () => {
    expect(headerKeyEscape('scopes')).to.equal('scopes');
    expect(headerKeyEscape('acme.com/project')).to.equal('acme.com%2Fproject');
    expect(headerKeyEscape('a b%c')).to.equal('a%20b%25c');
    expect(headerKeyEscape("x!#$&'*+-.^_`|~9")).to.equal("x!#$&'*+-.^_`|~9");
    expect(headerKeyEscape('é')).to.equal('%C3%A9');
  });
});
