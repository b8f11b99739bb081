/**
 * A full garbage collection in, or the memory usage of, another Node process, through its
 * inspector (the process runs with --inspect=127.0.0.1:0): `HeapProfiler.collectGarbage` and
 * `Runtime.evaluate` over the inspector's WebSocket.
 * Node 20 has no WebSocket client, so this speaks just enough of RFC 6455 for one request.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Socket } from 'node:net';

/** Asks the process behind `wsUrl` (`ws://127.0.0.1:<port>/<id>`) for a full GC; resolves when it is done. */
export async function collectGarbage(wsUrl: string, timeoutMs = 30_000): Promise<void> {
  await inspectorCall(wsUrl, 'HeapProfiler.collectGarbage', {}, timeoutMs);
}

/** `process.memoryUsage()` of the process behind `wsUrl`, read without collecting anything. */
export async function remoteMemoryUsage(wsUrl: string, timeoutMs = 30_000): Promise<NodeJS.MemoryUsage> {
  const res = await inspectorCall(wsUrl, 'Runtime.evaluate',
    { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true }, timeoutMs);
  return JSON.parse(res.result.value);
}

/** One inspector method call; resolves with its result. */
async function inspectorCall(wsUrl: string, method: string, params: object, timeoutMs: number): Promise<any> {
  const socket = await upgrade(wsUrl, timeoutMs);
  try {
    const reply = readMessages(socket);
    socket.write(frame(JSON.stringify({ id: 1, method, params })));
    for (;;) {
      const msg = JSON.parse(await reply.next(timeoutMs));
      if (msg.id !== 1) continue;
      if (msg.error) throw new Error(`${method}: ${JSON.stringify(msg.error)}`);
      return msg.result;
    }
  } finally {
    socket.destroy();
  }
}

function upgrade(wsUrl: string, timeoutMs: number): Promise<Socket> {
  const url = new URL(wsUrl);
  return new Promise((resolve, reject) => {
    const req = http.get({
      host: url.hostname, port: url.port, path: url.pathname, timeout: timeoutMs,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
    });
    req.on('upgrade', (_res, socket, head) => {
      if (head.length) socket.unshift(head);
      resolve(socket as Socket);
    });
    req.on('response', (res) => reject(new Error(`inspector ${wsUrl}: HTTP ${res.statusCode}, no upgrade`)));
    req.on('timeout', () => req.destroy(new Error(`inspector ${wsUrl}: timed out`)));
    req.on('error', reject);
  });
}

/** One masked text frame (clients must mask). */
function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const len = payload.length;
  const header = len < 126 ? Buffer.from([0x81, 0x80 | len])
    : len < 65536 ? Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff])
      : (() => { const h = Buffer.alloc(10); h[0] = 0x81; h[1] = 0x80 | 127; h.writeBigUInt64BE(BigInt(len), 2); return h; })();
  const masked = Buffer.alloc(len);
  for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

/** The text of each unmasked, unfragmented frame the server sends, in order. */
function readMessages(socket: Socket): { next(timeoutMs: number): Promise<string> } {
  let buf = Buffer.alloc(0);
  const ready: string[] = [];
  let waiting: ((msg: string) => void) | undefined;
  let failed: Error | undefined;
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1] & 0x7f;
      let offset = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); offset = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); offset = 10; }
      if (buf.length < offset + len) return;
      const opcode = buf[0] & 0x0f;
      const text = buf.subarray(offset, offset + len).toString('utf8');
      buf = buf.subarray(offset + len);
      if (opcode !== 0x1) continue;
      if (waiting) { const w = waiting; waiting = undefined; w(text); } else ready.push(text);
    }
  });
  socket.on('error', (err) => { failed = err; });
  socket.on('close', () => { failed ??= new Error('inspector closed the connection'); });
  return {
    next(timeoutMs) {
      if (ready.length) return Promise.resolve(ready.shift()!);
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('inspector did not answer')), timeoutMs);
        socket.once('close', () => { clearTimeout(timer); reject(failed ?? new Error('inspector closed the connection')); });
        waiting = (msg) => { clearTimeout(timer); resolve(msg); };
      });
    },
  };
}
