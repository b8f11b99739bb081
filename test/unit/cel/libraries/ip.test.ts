/**
 * Kubernetes' IP and CIDR libraries: the strict parsing Kubernetes applies to Service and network
 * policy fields (no leading zeros, no zones, no IPv4-mapped IPv6), the address classifications, CIDR
 * containment, and Kubernetes' error texts.
 */

import { table } from './table';

describe('cel library: IP', () => {
  table([
    ['isIP("192.168.0.1")', true],
    ['isIP("2001:db8::1")', true],
    ['isIP("192.168.0.01")', false],
    ['isIP("fe80::1%eth0")', false],
    ['isIP("::ffff:192.168.0.1")', false],
    ['isIP("192.168.0.0/24")', false],
    ['isIP("")', false],
    ['ip("192.168.0.1").family()', 4n],
    ['ip("2001:db8::1").family()', 6n],
    ['string(ip("192.168.0.1"))', '192.168.0.1'],
    ['string(ip("2001:DB8:0:0:0:0:0:1"))', '2001:db8::1'],
    ['string(ip("2001:db8:0:0:1:0:0:1"))', '2001:db8::1:0:0:1'],
    ['string(ip("::"))', '::'],
    ['ip.isCanonical("2001:db8::1")', true],
    ['ip.isCanonical("2001:DB8::1")', false],
    ['ip.isCanonical("2001:db8:0:0:0:0:0:1")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    ['ip("192.168.0.1") == ip("192.168.0.1")', true],
    ['ip("192.168.0.1") == ip("192.168.0.2")', false],
    ['ip("2001:db8::1") == ip("2001:DB8::1")', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("::").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("127.255.0.1").isLoopback()', true],
    ['ip("::1").isLoopback()', true],
    ['ip("::2").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("2001:db8::1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['ip("224.0.0.1").isGlobalUnicast()', false],
    ['ip("127.0.0.1").isGlobalUnicast()', false],
    ['ip("192.168.0.01")', { error: 'IP Address "192.168.0.01" parse error during conversion from string: ParseAddr("192.168.0.01"): IPv4 field has octet with leading zero' }],
    ['ip("192.168.0.256")', { error: 'IP Address "192.168.0.256" parse error during conversion from string: ParseAddr("192.168.0.256"): IPv4 field has value >255' }],
    ['ip("1.2.3")', { error: 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short' }],
    ['ip("1.2.3.4.5")', { error: 'IP Address "1.2.3.4.5" parse error during conversion from string: ParseAddr("1.2.3.4.5"): IPv4 address too long' }],
    ['ip("foo")', { error: 'IP Address "foo" parse error during conversion from string: ParseAddr("foo"): unable to parse IP' }],
    ['ip("2001:db8::1::1")', { error: 'IP Address "2001:db8::1::1" parse error during conversion from string: ParseAddr("2001:db8::1::1"): multiple :: in address (at ":1")' }],
    ['ip("fe80::1%eth0")', { error: 'IP address "fe80::1%eth0" with zone value is not allowed' }],
    ['ip("::ffff:192.168.0.1")', { error: 'IPv4-mapped IPv6 address "::ffff:192.168.0.1" is not allowed' }],
  ]);
});

describe('cel library: CIDR', () => {
  const prefixError = (s: string, msg: string): { error: string } => ({
    error: `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("${s}"): ${msg}`,
  });
  table([
    ['isCIDR("192.168.0.0/24")', true],
    ['isCIDR("2001:db8::/32")', true],
    ['isCIDR("192.168.0.0")', false],
    ['isCIDR("192.168.0.0/33")', false],
    ['isCIDR("192.168.00.0/24")', false],
    ['isCIDR("::ffff:192.168.0.0/120")', false],
    ['cidr("192.168.0.0/24").prefixLength()', 24n],
    ['string(cidr("192.168.0.1/24"))', '192.168.0.1/24'],
    ['string(cidr("192.168.0.1/24").masked())', '192.168.0.0/24'],
    ['string(cidr("2001:db8::1/32").masked())', '2001:db8::/32'],
    ['string(cidr("192.168.0.1/24").ip())', '192.168.0.1'],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24") == cidr("192.168.0.0/25")', false],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("2001:db8::/32").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.1.1/32").containsIP(ip("2001:db8::1"))', false],
    ['cidr("192.168.0.0/16").containsCIDR(cidr("192.168.10.0/24"))', true],
    ['cidr("192.168.1.0/24").containsCIDR(cidr("192.168.2.0/24"))', false],
    ['cidr("192.168.0.0/16").containsCIDR("192.168.10.0/24")', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', true],
    ['cidr("2001:db8::1/32").containsCIDR(cidr("2001:db8:ffff::1/48"))', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.01")', { error: 'IP Address "192.168.0.01" parse error during conversion from string: ParseAddr("192.168.0.01"): IPv4 field has octet with leading zero' }],
    ['cidr("192.168.0.0")', prefixError('192.168.0.0', "no '/'")],
    ['cidr("192.168.0.1/")', prefixError('192.168.0.1/', 'bad bits after slash: ""')],
    ['cidr("192.168.0.1/024")', prefixError('192.168.0.1/024', 'bad bits after slash: "024"')],
    ['cidr("192.168.0.1/33")', prefixError('192.168.0.1/33', 'prefix length out of range')],
    ['cidr("192.168.001.1/24")', prefixError('192.168.001.1/24', 'ParseAddr("192.168.001.1"): IPv4 field has octet with leading zero')],
    ['cidr("fe80::1%eth0/64")', prefixError('fe80::1%eth0/64', 'IPv6 zones cannot be present in a prefix')],
    ['cidr("::ffff:192.168.0.0/120")', { error: 'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:192.168.0.0/120" is not allowed' }],
  ]);
});
