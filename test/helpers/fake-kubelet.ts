/**
 * A kubelet the tests serve: HTTPS on a free port of `host` with a serving certificate of its
 * own CA (SANs localhost, 127.0.0.1 and `host`), optionally requiring a client certificate of
 * `clientCaPem` (the server's --kubelet-client-certificate must be accepted). It serves what the
 * API server dials:
 *  - GET /containerLogs/{ns}/{pod}/{container}?...: `log {ns}/{pod}/{container} {query}\n`;
 *    with follow=true, `line 1\n`, then `line 2\n` when the test calls releaseFollow(), then the end;
 *    pod `missing`: 404 `pods "missing" not found`;
 *  - upgrades on /exec, /attach, /portForward and any other path: SPDY/3.1 or websocket answered
 *    101 and every byte echoed back; a websocket offering `v5.channel.k8s.io` on /exec is answered
 *    in that channel protocol as a kubelet would run the command `echo`: its arguments on stdout
 *    (channel 1), then a Success status (channel 3) and a close frame; a path containing
 *    `refuse` answers 403 (an upgrade refused);
 *  - any other request: 200 JSON {method, path, query, body}; `/redirect` answers 302 to its own
 *    `https://host:port/elsewhere`.
 * Every request is recorded (method, url, headers, the client certificate's CN).
 */
import https from 'node:https';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';

export interface KubeletRequest { method: string; url: string; headers: IncomingMessage['headers']; clientCn?: string }

export interface FakeKubelet {
  host: string;
  port: number;
  /** The CA of its serving certificate (the server's --kubelet-certificate-authority). */
  caPem: string;
  requests: KubeletRequest[];
  /** Lets a following log stream write its second line and end. */
  releaseFollow(): void;
  stop(): Promise<void>;
}

export interface Pem { certPem: string; keyPem: string }

function rsa(): { keyPem: string; priv: forge.pki.rsa.PrivateKey; pub: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const priv = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { keyPem, priv, pub: forge.pki.setRsaPublicKey(priv.n, priv.e) };
}

/** A CA, or a leaf signed by `issuer` (serving with SANs `hosts`, or client with CN `cn`). */
export function makeCert(opts: { cn: string; ca?: boolean; hosts?: string[]; client?: boolean }, issuer?: Pem): Pem {
  const k = rsa();
  const cert = forge.pki.createCertificate();
  cert.publicKey = k.pub;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const subject = [{ name: 'commonName', value: opts.cn }];
  cert.setSubject(subject);
  cert.setIssuer(issuer ? forge.pki.certificateFromPem(issuer.certPem).subject.attributes : subject);
  const ext: object[] = opts.ca
    ? [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true }]
    : [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: !opts.client, clientAuth: Boolean(opts.client) }];
  if (opts.hosts) {
    ext.push({ name: 'subjectAltName', altNames: opts.hosts.map((h) => (/^[0-9.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })) });
  }
  cert.setExtensions(ext);
  cert.sign(forge.pki.privateKeyFromPem(issuer ? issuer.keyPem : k.keyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.keyPem };
}

/** One websocket frame from the server (unmasked): binary, or close. */
function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len]) : Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff]);
  return Buffer.concat([head, payload]);
}

export async function startFakeKubelet(opts: { host?: string; clientCaPem?: string; ca?: Pem } = {}): Promise<FakeKubelet> {
  const host = opts.host ?? '127.0.0.1';
  const ca = opts.ca ?? makeCert({ cn: 'fake-kubelet-ca', ca: true });
  const serving = makeCert({ cn: 'fake-kubelet', hosts: ['localhost', '127.0.0.1', host] }, ca);
  const requests: KubeletRequest[] = [];
  const followers: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server = https.createServer({
    cert: serving.certPem, key: serving.keyPem,
    ...(opts.clientCaPem ? { ca: opts.clientCaPem, requestCert: true, rejectUnauthorized: true } : {}),
  });
  server.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  const record = (req: IncomingMessage) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCn: peer && peer.subject ? String(peer.subject.CN) : undefined });
  };
  server.on('request', (req, res) => {
    record(req);
    const u = new URL(req.url ?? '/', 'https://kubelet');
    const logs = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(u.pathname);
    if (logs) {
      if (logs[2] === 'missing') {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('pods "missing" not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      if (u.searchParams.get('follow') === 'true') {
        res.write('line 1\n');
        followers.push(() => { res.write('line 2\n'); res.end(); });
        return;
      }
      res.end(`log ${logs[1]}/${logs[2]}/${logs[3]} ${u.search}\n`);
      return;
    }
    if (u.pathname === '/redirect') {
      res.writeHead(302, { Location: `https://${host.includes(':') ? `[${host}]` : host}:${port}/elsewhere`, Connection: 'close, X-Hop', 'X-Hop': 'dropped' });
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
      res.end(JSON.stringify({ method: req.method, path: u.pathname, query: u.search, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    record(req);
    const u = new URL(req.url ?? '/', 'https://kubelet');
    if (u.pathname.includes('refuse')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nforbidden');
      return;
    }
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
    if (upgrade === 'websocket') {
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
      const channel = u.pathname.startsWith('/exec/') && offered.includes('v5.channel.k8s.io');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n`
        + `${channel ? 'Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n' : ''}\r\n`);
      if (channel) {
        const args = u.searchParams.getAll('command');
        const out = args[0] === 'echo' ? `${args.slice(1).join(' ')}\n` : '';
        socket.write(frame(2, Buffer.concat([Buffer.from([1]), Buffer.from(out)])));
        socket.write(frame(2, Buffer.concat([Buffer.from([3]), Buffer.from('{"metadata":{},"status":"Success"}')])));
        socket.end(frame(8, Buffer.from([0x03, 0xe8])));
        socket.on('data', () => undefined);
        return;
      }
    } else {
      const version = String(req.headers['x-stream-protocol-version'] ?? '').split(',')[0].trim();
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${version ? `X-Stream-Protocol-Version: ${version}\r\n` : ''}\r\n`);
    }
    if (head.length) socket.write(head);
    socket.pipe(socket);
    socket.on('error', () => socket.destroy());
  });
  let port = 0;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  port = (server.address() as { port: number }).port;
  return {
    host, port, caPem: ca.certPem, requests,
    releaseFollow: () => { for (const f of followers.splice(0)) f(); },
    stop: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
