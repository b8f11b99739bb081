/**
 * The pure parts of the `default/kubernetes` reconciler: which address a replica advertises
 * (kube-apiserver's choice, and this server's loopback fallback), and the objects it writes
 * (sorted addresses, the https port, the skip-mirror label, the slice's address type).
 */
import { expect } from 'chai';
import os from 'node:os';
import { chooseAdvertiseAddress } from '../../../lib/controllers/kubernetes-service/advertise';
import { endpointsCorrect, kubernetesEndpoints, sliceFields } from '../../../lib/controllers/kubernetes-service/endpoints-adapter';
import { parseFlags } from '../../../lib/server/flags';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false): os.NetworkInterfaceInfo =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as os.NetworkInterfaceInfo;

describe('kubernetes service reconciler', () => {
  describe('chooseAdvertiseAddress', () => {
    const interfaces = { lo: [nic('127.0.0.1', 'IPv4', true)], eth0: [nic('fe80::1', 'IPv6'), nic('2001:db8::5', 'IPv6'), nic('192.168.1.7', 'IPv4')] };
    it('takes --advertise-address first', () => {
      expect(chooseAdvertiseAddress('10.1.1.1', '0.0.0.0', interfaces)).to.deep.equal({ address: '10.1.1.1' });
    });
    it('else --bind-address unless it is unspecified', () => {
      expect(chooseAdvertiseAddress('', '10.2.2.2', interfaces)).to.deep.equal({ address: '10.2.2.2' });
    });
    it('else the host\'s first non-loopback, non-link-local address, IPv4 first', () => {
      expect(chooseAdvertiseAddress('', '0.0.0.0', interfaces)).to.deep.equal({ address: '192.168.1.7' });
      expect(chooseAdvertiseAddress('', '::', { eth0: [nic('2001:db8::5', 'IPv6')] })).to.deep.equal({ address: '2001:db8::5' });
    });
    it('else 127.0.0.1 with a warning (kube-apiserver would not start)', () => {
      const choice = chooseAdvertiseAddress('', '0.0.0.0', { lo: [nic('127.0.0.1', 'IPv4', true)] });
      expect(choice.address).to.equal('127.0.0.1');
      expect(choice.warning).to.match(/set --advertise-address/);
    });
  });

  it('--endpoint-reconciler-type: lease by default, none accepted, master-count refused', () => {
    expect(parseFlags([]).endpointReconcilerType).to.equal('lease');
    expect(parseFlags(['--endpoint-reconciler-type=none']).endpointReconcilerType).to.equal('none');
    expect(() => parseFlags(['--endpoint-reconciler-type=master-count'])).to.throw(/endpoint-reconciler-type/);
  });

  describe('the objects', () => {
    it('lists the addresses sorted on the https port, labelled skip-mirror, keeping other metadata', () => {
      const ep = kubernetesEndpoints({ metadata: { name: 'kubernetes', namespace: 'default', uid: 'u', labels: { a: 'b' } } }, ['10.0.0.9', '10.0.0.10'], 6443);
      expect(ep.metadata).to.deep.equal({ name: 'kubernetes', namespace: 'default', uid: 'u', labels: { a: 'b', 'endpointslice.kubernetes.io/skip-mirror': 'true' } });
      expect(ep.subsets).to.deep.equal([{ addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.9' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
      expect(endpointsCorrect(ep, ['10.0.0.10', '10.0.0.9'], 6443)).to.equal(true);
      expect(endpointsCorrect(ep, ['10.0.0.10'], 6443)).to.equal(false);
      expect(endpointsCorrect(ep, ['10.0.0.10', '10.0.0.9'], 443)).to.equal(false);
      expect(endpointsCorrect({ ...ep, metadata: { name: 'kubernetes' } }, ['10.0.0.10', '10.0.0.9'], 6443)).to.equal(false);
    });

    it('makes the slice IPv6 only when every address is', () => {
      expect(sliceFields(kubernetesEndpoints(undefined, ['2001:db8::1'], 6443)).fields.addressType).to.equal('IPv6');
      const mixed = sliceFields(kubernetesEndpoints(undefined, ['2001:db8::1', '10.0.0.1'], 6443));
      expect(mixed.fields.addressType).to.equal('IPv4');
      expect(mixed.labels).to.deep.equal({ 'kubernetes.io/service-name': 'kubernetes' });
      expect(mixed.fields.endpoints).to.deep.equal([
        { addresses: ['10.0.0.1'], conditions: { ready: true } }, { addresses: ['2001:db8::1'], conditions: { ready: true } }]);
    });
  });
});
