/**
 * The child of the h2-floor benchmark: a bare h2c server answering every POST with 201 and a
 * small JSON body, in one of three ways (argv[2]): through node:http2's compatibility API
 * (`compat`, what the server uses), its core stream API (`core`), or at the frame level on the
 * etcd client's own HTTP/2 code (`frames`: lib/http2, no request or response objects).
 * It prints its port to the parent and answers 'cpu' messages with its CPU time (µs).
 */
import http2 from 'node:http2';
import net from 'node:net';
import * as F from '../../lib/http2/frames';
import { encodeHeaderBlock, HpackDecoder } from '../../lib/http2/hpack';

const ANSWER = Buffer.from('{"kind":"Status","code":201}');

function framesServer(): net.Server {
  return net.createServer((sock) => {
    sock.setNoDelay(true);
    sock.on('error', () => undefined);
    const decoder = new HpackDecoder();
    const bodies = new Map<number, Buffer[]>();
    const out: Buffer[] = [];
    let scheduled = false;
    let unacked = 0;
    let preface: Buffer | undefined = Buffer.alloc(0);
    const flush = () => {
      scheduled = false;
      sock.write(out.length === 1 ? out[0] : Buffer.concat(out));
      out.length = 0;
    };
    const write = (b: Buffer) => {
      out.push(b);
      if (!scheduled) { scheduled = true; setImmediate(flush); }
    };
    const answer = (id: number) => {
      Buffer.concat(bodies.get(id) ?? []); // the body as one buffer, as a handler reads it
      bodies.delete(id);
      const block = encodeHeaderBlock([[':status', '201'], ['content-type', 'application/json'], ['content-length', String(ANSWER.length)]]);
      write(F.frameOf(F.HEADERS, F.FLAG_END_HEADERS, id, block));
      write(F.frameOf(F.DATA, F.FLAG_END_STREAM, id, ANSWER));
    };
    write(F.settingsFrame([[F.SETTINGS_MAX_CONCURRENT_STREAMS, 1000], [F.SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20]]));
    write(F.windowUpdateFrame(0, 1 << 30));
    const reader = new F.FrameReader((type, flags, id, payload) => {
      if (type === F.SETTINGS) {
        if (!(flags & F.FLAG_ACK)) write(F.frameOf(F.SETTINGS, F.FLAG_ACK, 0));
      } else if (type === F.HEADERS) {
        let block = payload;
        const pad = flags & F.FLAG_PADDED ? block[0] : 0;
        if (flags & F.FLAG_PADDED) block = block.subarray(1);
        if (flags & F.FLAG_PRIORITY) block = block.subarray(5);
        decoder.decode(block.subarray(0, block.length - pad));
        bodies.set(id, []);
        if (flags & F.FLAG_END_STREAM) answer(id);
      } else if (type === F.DATA) {
        bodies.get(id)?.push(payload);
        unacked += payload.length;
        if (unacked > 1 << 19) { write(F.windowUpdateFrame(0, unacked)); unacked = 0; }
        if (flags & F.FLAG_END_STREAM) answer(id);
      } else if (type === F.PING && !(flags & F.FLAG_ACK)) {
        write(F.frameOf(F.PING, F.FLAG_ACK, 0, payload));
      }
    });
    sock.on('data', (chunk: Buffer) => {
      if (preface) {
        preface = Buffer.concat([preface, chunk]);
        if (preface.length < F.PREFACE.length) return;
        chunk = preface.subarray(F.PREFACE.length);
        preface = undefined;
      }
      reader.push(chunk);
    });
  });
}

function serverFor(mode: string): net.Server | http2.Http2Server {
  if (mode === 'frames') return framesServer();
  if (mode === 'core') {
    const server = http2.createServer();
    server.on('stream', (stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        Buffer.concat(chunks);
        stream.respond({ ':status': 201, 'content-type': 'application/json', 'content-length': ANSWER.length });
        stream.end(ANSWER);
      });
    });
    return server;
  }
  return http2.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Buffer.concat(chunks);
      res.statusCode = 201;
      res.setHeader('content-type', 'application/json');
      res.setHeader('content-length', ANSWER.length);
      res.end(ANSWER);
    });
  });
}

const server = serverFor(process.argv[2] ?? 'compat');
server.listen(0, '127.0.0.1', () => process.send!((server.address() as net.AddressInfo).port));
process.on('message', (m) => {
  if (m !== 'cpu') return;
  const u = process.cpuUsage();
  process.send!({ cpu: u.user + u.system });
});
process.on('disconnect', () => process.exit(0));
