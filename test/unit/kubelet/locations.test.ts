/**
 * The pure parts of the kubelet connections, against Kubernetes' own rules: SplitSchemeNamePort,
 * IsGlobalUnicast (which proxies may reach), the proxy transport's Location rewriting, the
 * upgrade test of httpstream.IsUpgradeRequest, the errors' Status shapes, and the
 * --kubelet-* flags (defaults, the address types accepted, the client pair given together).
 */
import { expect } from 'chai';
import { isGlobalUnicast, splitSchemeNamePort } from '../../../lib/kubelet/locations';
import { rewriteLocation } from '../../../lib/kubelet/forward';
import { genericServerResponse, plainError } from '../../../lib/kubelet/errors';
import { asksUpgrade } from '../../../lib/http/upgrade';
import { parseFlags } from '../../../lib/server/flags';

describe('kubelet connections: pure parts', () => {
  it('splits `name`, `name:port` and `scheme:name:port`, schemes http, https or none', () => {
    expect(splitSchemeNamePort('web')).to.deep.equal({ scheme: '', name: 'web', port: '' });
    expect(splitSchemeNamePort('web:8080')).to.deep.equal({ scheme: '', name: 'web', port: '8080' });
    expect(splitSchemeNamePort('https:web:443')).to.deep.equal({ scheme: 'https', name: 'web', port: '443' });
    for (const bad of ['ftp:web:21', ':80', 'a:b:c:d', '']) expect(splitSchemeNamePort(bad), bad).to.equal(undefined);
  });

  it('reaches only global unicast addresses, as Go\'s IP.IsGlobalUnicast', () => {
    for (const ip of ['10.0.0.1', '192.0.2.2', '8.8.8.8', '2001:db8::1', 'fd00::2']) expect(isGlobalUnicast(ip), ip).to.equal(true);
    for (const ip of ['127.0.0.1', '0.0.0.0', '169.254.1.1', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', 'localhost', ''])
      expect(isGlobalUnicast(ip), ip).to.equal(false);
  });

  it('rewrites a Location on the backend\'s host, or host-less, under the proxy path; keeps others', () => {
    const b = { scheme: 'https' as const, host: '10.0.0.5', port: 10250, kubelet: true };
    const prefix = '/api/v1/nodes/n1/proxy';
    expect(rewriteLocation('https://10.0.0.5:10250/logs/', b, 'api.example.com', prefix)).to.equal('/api/v1/nodes/n1/proxy/logs/');
    expect(rewriteLocation('/metrics?x=1', b, 'api.example.com', prefix)).to.equal('/api/v1/nodes/n1/proxy/metrics?x=1');
    expect(rewriteLocation('/api/v1/nodes/n1/proxy/already', b, undefined, prefix)).to.equal('/api/v1/nodes/n1/proxy/already');
    expect(rewriteLocation('https://elsewhere.example.com/x', b, 'api.example.com', prefix)).to.equal('https://elsewhere.example.com/x');
    expect(rewriteLocation('relative/path', b, 'api.example.com', prefix)).to.equal('relative/path');
  });

  it('takes a request as an upgrade only with a Connection token `upgrade` and an Upgrade header', () => {
    expect(asksUpgrade({ connection: 'keep-alive, Upgrade', upgrade: 'SPDY/3.1' })).to.equal(true);
    expect(asksUpgrade({ connection: 'Upgrade', upgrade: 'websocket' })).to.equal(true);
    expect(asksUpgrade({ connection: 'keep-alive', upgrade: 'websocket' })).to.equal(false);
    expect(asksUpgrade({ connection: 'upgrade' })).to.equal(false);
  });

  it('answers a non-Status error without a reason, and a kubelet\'s 5xx as InternalError with its body', () => {
    expect(plainError('error dialing backend: x').toStatus()).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'error dialing backend: x', code: 500,
    });
    const s = genericServerResponse(502, 'pods/log', 'p', 'bad gateway').toStatus();
    expect(s).to.deep.include({ code: 502, reason: 'InternalError', message: 'an error on the server ("bad gateway") has prevented the request from succeeding ( pods/log p)' });
    const odd = genericServerResponse(418, 'pods/log', 'p', 'teapot').toStatus();
    expect(odd.reason).to.equal(undefined);
    expect(odd.message).to.equal('the server responded with the status code 418 but did not return more information ( pods/log p)');
  });

  it('--kubelet-* flags: kube-apiserver\'s defaults, address types checked, the client pair given together', () => {
    const c = parseFlags([]);
    expect(c.kubeletPreferredAddressTypes).to.deep.equal(['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);
    expect(c.kubeletTimeoutMs).to.equal(5000);
    expect(parseFlags(['--kubelet-preferred-address-types=InternalIP,Hostname', '--kubelet-timeout=2s'])).to.deep.include({
      kubeletPreferredAddressTypes: ['InternalIP', 'Hostname'], kubeletTimeoutMs: 2000,
    });
    expect(() => parseFlags(['--kubelet-preferred-address-types=Internal'])).to.throw(/Internal/);
    expect(() => parseFlags(['--kubelet-client-certificate=/tmp/c.crt'])).to.throw(/kubelet-client-key/);
  });
});
