import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { curlAvailable, curlClient, FirstByte, median, Protocol } from '../helpers/first-byte';

/**
 * Issue 20: a request on a new HTTP/1.1 TLS connection answered ~40 ms late (Nagle on the server
 * socket held the response behind the unacknowledged TLS 1.3 session tickets until the client's
 * delayed ACK). Judged as a ratio to HTTP/2 on the same server in the same run, so a loaded
 * machine slows both sides alike; curl makes the requests, as in the issue.
 */
describe('HTTP/1.1 on a new connection answers as fast as HTTP/2 (no Nagle stall)', () => {
  let t: TestServer;
  before(async function () {
    if (!curlAvailable()) this.skip();
    t = await startTestServer();
  });
  after(async () => { await t?.stop(); });

  it('median time to first byte over 20 new HTTP/1.1 connections is under 3x that over HTTP/2', async () => {
    const curl = curlClient({
      ca: t.server.pki.caCertPem,
      cert: readFileSync(t.server.pki.adminCertFile, 'utf8'), key: readFileSync(t.server.pki.adminKeyFile, 'utf8'),
    });
    try {
      const url = `${t.server.url}/api/v1/namespaces/default`;
      const runs: Record<Protocol, FirstByte[]> = { 'HTTP/1.1': [], 'HTTP/2': [] };
      // The protocols alternate, so a busy moment of the machine falls on both.
      for (let i = 0; i < 20; i++) {
        for (const p of ['HTTP/1.1', 'HTTP/2'] as Protocol[]) {
          const r = await curl.firstByte(p, url);
          expect(r.status, p).to.equal(200);
          runs[p].push(r);
        }
      }
      const h1 = median(runs['HTTP/1.1'].map((r) => r.firstByteMs));
      const h2 = median(runs['HTTP/2'].map((r) => r.firstByteMs));
      const h1Handshake = median(runs['HTTP/1.1'].map((r) => r.handshakeMs));
      console.log(`      new-connection GET (curl), median first byte: HTTP/1.1 ${h1.toFixed(1)} ms (handshake ${h1Handshake.toFixed(1)} ms), HTTP/2 ${h2.toFixed(1)} ms, ratio ${(h1 / h2).toFixed(2)}`);
      expect(h1 / h2).to.be.below(3);
    } finally {
      curl.close();
    }
  });
});
