/**
 * lib/registry/core/endpoint-ip.ts: addresses parsed as Go's netutils.ParseIPSloppy parses them,
 * and the special ranges ValidateEndpointIP refuses, IPv4-mapped IPv6 addresses counting as IPv4.
 */
import { expect } from 'chai';
import { parseIpSloppy, specialRanges, validateEndpointIp } from '../../../../lib/registry/core/endpoint-ip';

describe('endpoint IP checks', () => {
  it('parses as ParseIPSloppy: leading zeros in IPv4, ::, embedded IPv4; not zones, not out-of-range octets', () => {
    expect(parseIpSloppy('010.001.0.1')?.v4).to.equal(true);
    expect(parseIpSloppy('::')?.v4).to.equal(false);
    expect(parseIpSloppy('::ffff:10.0.0.1')?.v4).to.equal(true);
    expect(parseIpSloppy('2001:db8::1:2')?.bytes.slice(12)).to.deep.equal([0, 1, 0, 2]);
    for (const bad of ['256.0.0.1', '1.2.3', 'fe80::1%eth0', '1:2:3:4:5:6:7:8:9', '::1::', 'abc', '']) expect(parseIpSloppy(bad), bad).to.equal(undefined);
  });

  it('names the special ranges as Go\'s net.IP does', () => {
    const ranges = (ip: string) => specialRanges(parseIpSloppy(ip)!);
    expect(ranges('0.0.0.0')).to.deep.equal(['unspecified']);
    expect(ranges('::')).to.deep.equal(['unspecified']);
    expect(ranges('127.5.5.5')).to.deep.equal(['loopback']);
    expect(ranges('::ffff:127.0.0.1')).to.deep.equal(['loopback']);
    expect(ranges('::1')).to.deep.equal(['loopback']);
    expect(ranges('169.254.1.1')).to.deep.equal(['link-local']);
    expect(ranges('febf::1')).to.deep.equal(['link-local']);
    expect(ranges('224.0.0.251')).to.deep.equal(['link-local multicast']);
    expect(ranges('ff12::1')).to.deep.equal(['link-local multicast']);
    expect(ranges('224.0.1.1')).to.deep.equal([]);
    expect(ranges('10.0.0.1')).to.deep.equal([]);
  });

  it('lets only the server\'s own write through with a loopback address', () => {
    expect(validateEndpointIp('127.0.0.2', 'ip')).to.have.length(1);
    expect(validateEndpointIp('127.0.0.2', 'ip', { allowLoopback: true })).to.deep.equal([]);
    expect(validateEndpointIp('169.254.0.1', 'ip', { allowLoopback: true })).to.have.length(1);
  });
});
