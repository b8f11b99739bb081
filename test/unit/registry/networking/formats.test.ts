/**
 * The networking formats (lib/registry/networking/formats.ts): CIDR parsing and containment as
 * an IPBlock's `except` needs them (IPv4 and IPv6, `::` and embedded IPv4 forms), wildcard hosts
 * and domain-prefixed paths with Kubernetes' messages, and what counts as an IP for a host.
 */
import { expect } from 'chai';
import { cidrContains, isWildcardDns1123Subdomain, looksLikeIp, parseCidr, validateDomainPrefixedPath } from '../../../../lib/registry/networking/formats';

const within = (outer: string, inner: string) => cidrContains(parseCidr(outer)!, parseCidr(inner)!);

describe('networking formats', () => {
  it('parses IPv4 and IPv6 CIDRs and refuses malformed ones', () => {
    expect(parseCidr('10.0.0.0/8')).to.deep.equal({ bytes: [10, 0, 0, 0], bits: 8 });
    expect(parseCidr('2001:db8::/64')?.bits).to.equal(64);
    expect(parseCidr('2001:db8::/64')?.bytes.slice(0, 4)).to.deep.equal([0x20, 0x01, 0x0d, 0xb8]);
    expect(parseCidr('::ffff:10.1.2.3/128')?.bytes.slice(12)).to.deep.equal([10, 1, 2, 3]);
    // ParseCIDRSloppy accepts leading zeros in IPv4.
    expect(parseCidr('010.000.0.0/16')).to.deep.equal({ bytes: [10, 0, 0, 0], bits: 16 });
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '2001:db8::/129', 'x/8', '10.0.0.256/8', '10.0.0.0/-1']) expect(parseCidr(bad), bad).to.equal(undefined);
  });

  it('tells whether an address lies within a network, per family', () => {
    expect(within('10.0.0.0/16', '10.0.5.0/24')).to.equal(true);
    expect(within('10.0.0.0/16', '10.1.0.0/24')).to.equal(false);
    expect(within('10.0.0.0/15', '10.1.0.0/24')).to.equal(true);
    expect(within('2001:db8::/32', '2001:db8:ff::/48')).to.equal(true);
    expect(within('2001:db8::/32', '2001:db9::/48')).to.equal(false);
    expect(within('10.0.0.0/8', '::/0')).to.equal(false);
  });

  it('checks wildcard hosts as IsWildcardDNS1123Subdomain', () => {
    expect(isWildcardDns1123Subdomain('*.example.com')).to.deep.equal([]);
    expect(isWildcardDns1123Subdomain('*')).to.have.length(1);
    expect(isWildcardDns1123Subdomain('a.*.com')[0]).to.match(/^a wildcard DNS-1123 subdomain must start with '\*\.'/);
  });

  it('checks domain-prefixed paths as IsDomainPrefixedPath', () => {
    expect(validateDomainPrefixedPath('c', 'acme.io/foo/bar')).to.deep.equal([]);
    expect(validateDomainPrefixedPath('c', '')).to.deep.equal([{ type: 'FieldValueRequired', field: 'c', message: 'Required value' }]);
    expect(validateDomainPrefixedPath('c', '/foo')[0].message).to.equal('Invalid value: "/foo": must be a domain-prefixed path (such as "acme.io/foo")');
    expect(validateDomainPrefixedPath('c', 'acme.io/')[0].message).to.equal('Invalid value: "acme.io/": must be a domain-prefixed path (such as "acme.io/foo")');
  });

  it('counts IPv4, sloppy IPv4 and IPv6 addresses as IPs, names not', () => {
    for (const ip of ['10.0.0.1', '010.0.0.1', '::1', '2001:db8::1']) expect(looksLikeIp(ip), ip).to.equal(true);
    for (const name of ['example.com', '10.0.0', '1.2.3.4.5', '300.1.1.1']) expect(looksLikeIp(name), name).to.equal(false);
  });
});
