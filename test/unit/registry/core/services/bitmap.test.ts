/**
 * The allocation bitmap's bytes as Kubernetes writes them (allocator/bitmap.go stores
 * big.Int.Bytes(): big-endian, bit i of the integer = offset i, no leading zero bytes), the
 * static band of dynamic allocation, and the ranges' offsets (ipallocator: network + 1 is
 * offset 0; the static band of a /24 is 16 addresses, of the default node-port range 86 ports).
 */
import { expect } from 'chai';
import { AllocationBitmap } from '../../../../../lib/registry/core/services/bitmap';
import { parsePortRange, parseServiceCidrs, serviceNetworkOf } from '../../../../../lib/registry/core/services/network';
import { parseIp } from '../../../../../lib/registry/core/services/ip-range';
import { FlagError, parseFlags } from '../../../../../lib/server/flags';

describe('Service allocation bitmap (Kubernetes encoding)', () => {
  it('writes big.Int.Bytes(): offset 0 is the lowest bit of the last byte', () => {
    const b = new AllocationBitmap(256, 0);
    expect(b.toBytes()).to.deep.equal(Buffer.alloc(0));
    b.allocate(0);
    expect(b.toBytes()).to.deep.equal(Buffer.from([0x01]));
    b.allocate(9);
    // big.NewInt(0).SetBit(0).SetBit(9).Bytes() == []byte{0x02, 0x01}
    expect(b.toBytes()).to.deep.equal(Buffer.from([0x02, 0x01]));
    b.release(0);
    expect(b.toBytes()).to.deep.equal(Buffer.from([0x02, 0x00]));
    expect(AllocationBitmap.fromBytes(256, 0, Buffer.from([0x80, 0x00, 0x01])).taken()).to.deep.equal([0, 23]);
  });

  it('allocates the upper band first, then the static band', () => {
    const b = new AllocationBitmap(20, 16);
    const first = [0, 1, 2, 3].map(() => b.allocateNext(() => 0));
    expect(first).to.deep.equal([16, 17, 18, 19]);
    expect(b.allocateNext(() => 0)).to.equal(0);
    for (let i = 1; i < 16; i++) b.allocateNext();
    expect(b.allocateNext()).to.equal(undefined);
  });

  it('maps addresses and ports to offsets as ipallocator and portallocator do', () => {
    const net = serviceNetworkOf('10.0.0.0/24', '30000-32767');
    const v4 = net.ipRanges[0];
    expect([v4.max, v4.offset, v4.offsetOf(parseIp('10.0.0.1')!), v4.offsetOf(parseIp('10.0.0.255')!), v4.addressAt(253)]).to.deep.equal([254, 16, 0, undefined, '10.0.0.254']);
    expect([net.nodePorts.max, net.nodePorts.offset, net.nodePorts.rangeText]).to.deep.equal([2768, 86, '30000-32767']);
    const v6 = serviceNetworkOf('fd00::/108', '30000+10').ipRanges[0];
    expect([v6.max, v6.rangeText, v6.addressAt(0)]).to.deep.equal([65535, 'fd00::/108', 'fd00::1']);
  });

  it('checks the flags as kube-apiserver', () => {
    expect(parseServiceCidrs('10.0.0.0/8')).to.deep.equal({ problem: 'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12' });
    expect(parseServiceCidrs('10.0.0.0/24,10.1.0.0/24')).to.deep.equal({ problem: '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family' });
    expect(parseServiceCidrs('a,b,c')).to.deep.equal({ problem: '--service-cluster-ip-range must not contain more than two entries' });
    expect(parsePortRange('30000+2767')).to.deep.equal({ base: 30000, size: 2768 });
    expect(parsePortRange('3-1')).to.deep.equal({ problem: 'end port cannot be less than start port: 3-1' });
    expect(parsePortRange('1-70000')).to.deep.equal({ problem: 'the port range cannot be greater than 65535: 1-70000' });
  });

  it('takes the flags on the command line with kube-apiserver\'s defaults, and refuses bad ones at start', () => {
    const c = parseFlags([]);
    expect([c.serviceClusterIpRange, c.serviceNodePortRange]).to.deep.equal(['10.0.0.0/24', '30000-32767']);
    expect(parseFlags(['--service-cluster-ip-range=10.96.0.0/12,fd00::/108']).serviceClusterIpRange).to.equal('10.96.0.0/12,fd00::/108');
    const refused = (argv: string[]) => { try { parseFlags(argv); } catch (err) { return err as FlagError; } throw new Error('accepted'); };
    const e = refused(['--service-cluster-ip-range=fd00::/64']);
    expect([e.code, e.message]).to.deep.equal(['InvalidValue', 'invalid value "fd00::/64" for --service-cluster-ip-range: specified --service-cluster-ip-range is too large; for 128-bit addresses, the mask must be >= 108']);
    expect(refused(['--service-node-port-range=30000-']).code).to.equal('InvalidValue');
  });
});
