/**
 * Issue 37 through the real server (own HTTP/1.1 side, TLS with ALPN http/1.1, real etcd):
 *  - the chunked-body smuggling repro (a bare LF in a chunk extension, a request pipelined after
 *    the body) is answered with one 400 and the connection closed; the pipelined request, here a
 *    create, is never served and the store is untouched;
 *  - CONNECT is answered 405 with kube-apiserver's Status and closed, with no 5xx and no error
 *    logged (it was a 500 and a TypeError from request-info);
 *  - the request-target forms the side takes (absolute-form, "*" for OPTIONS) reach the
 *    application without a 5xx.
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { expect } from 'chai';
import { captureLog, LogCapture } from '../helpers/log-capture';
import { startTestServer, TestServer } from '../helpers/server-harness';

const CM = '/api/v1/namespaces/default/configmaps';

/** Writes `bytes` on a new HTTP/1.1 connection and resolves with all the server sent once it closes (or after `ms`). */
function exchange(t: TestServer, bytes: string, ms = 5_000): Promise<{ text: string; closedByServer: boolean }> {
  const creds = { ca: t.server.pki.caCertPem, cert: readFileSync(t.server.pki.adminCertFile, 'utf8'), key: readFileSync(t.server.pki.adminKeyFile, 'utf8') };
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port: t.server.port, ...creds, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => {
      expect(sock.alpnProtocol).to.equal('http/1.1');
      sock.write(Buffer.from(bytes, 'latin1'));
    });
    let text = '';
    const timer = setTimeout(() => { sock.destroy(); resolve({ text, closedByServer: false }); }, ms);
    sock.on('data', (d: Buffer) => { text += d.toString('latin1'); });
    sock.on('end', () => { clearTimeout(timer); sock.destroy(); resolve({ text, closedByServer: true }); });
    sock.on('error', reject);
  });
}

const statusLines = (text: string) => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

describe('HTTP/1.1 strictness through the server (issue 37): smuggling refused, CONNECT 405', function () {
  this.timeout(60_000);
  let t: TestServer;
  let log: LogCapture;
  before(async () => {
    t = await startTestServer();
  });
  beforeEach(() => { log = captureLog(); });
  afterEach(() => {
    log.stop();
    expect(log.records().filter((r) => r.level === 'error'), 'errors logged').to.deep.equal([]);
  });
  after(async () => { await t?.stop(); });

  it('answers the smuggling repro with one 400, closes, and never serves the request pipelined after it', async () => {
    const repro = 'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a\nx\r\nhello\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
    const got = await exchange(t, repro);
    expect(statusLines(got.text)).to.deep.equal(['HTTP/1.1 400 Bad Request']);
    expect(got.text).to.include('Connection: close');
    expect(got.closedByServer).to.equal(true);

    // The same framing with a create behind it: the create must not happen.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smuggled' } });
    const create = `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    for (const framing of ['5;a\nx\r\nhello\r\n0\r\n\r\n', '5 \r\nhello\r\n0\r\n\r\n', '5\r\nhello\r\n0\r\nX t\r\n\r\n', '5;a\rx\r\nhello\r\n0\r\n\r\n']) {
      const again = await exchange(t, `POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${framing}${create}`);
      expect(statusLines(again.text), JSON.stringify(framing)).to.deep.equal(['HTTP/1.1 400 Bad Request']);
    }
    expect((await t.get(`${CM}/smuggled`)).status, 'the store is untouched').to.equal(404);
  });

  it('answers CONNECT 405 with a Status and closes: no 5xx, nothing logged', async () => {
    const got = await exchange(t, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(statusLines(got.text)).to.deep.equal(['HTTP/1.1 405 Method Not Allowed']);
    const [head, body] = got.text.split('\r\n\r\n');
    expect(head).to.include('Content-Type: application/json').and.include('Connection: close');
    expect(JSON.parse(body)).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed', details: {}, code: 405,
    });
    expect(got.closedByServer).to.equal(true);
  });

  it('serves an absolute-form target and OPTIONS * without a 5xx', async () => {
    const absolute = await exchange(t, 'GET https://localhost/healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(statusLines(absolute.text)).to.deep.equal(['HTTP/1.1 200 OK']);
    expect(absolute.text.endsWith('ok')).to.equal(true);
    const star = await exchange(t, 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(statusLines(star.text)).to.have.length(1);
    expect(Number(statusLines(star.text)[0]?.split(' ')[1])).to.be.within(200, 499);
  });
});
