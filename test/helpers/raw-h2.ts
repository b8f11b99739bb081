/**
 * A raw HTTP/2 client for tests that must break the protocol's etiquette on purpose: more
 * streams than the server allows, HEADERS followed at once by RST_STREAM (the rapid-reset
 * pattern), sessions that never send anything. It speaks TLS with ALPN `h2`, writes frames it
 * builds itself (HPACK without the dynamic table), and records the frames the server sends
 * (it answers SETTINGS and PING as any client must).
 */
import tls from 'node:tls';

export const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const H2_ERROR = {
  NO_ERROR: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2, FLOW_CONTROL_ERROR: 3, STREAM_CLOSED: 5, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, CANCEL: 8,
  COMPRESSION_ERROR: 9, ENHANCE_YOUR_CALM: 11,
} as const;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface Frame {
  type: number; flags: number; streamId: number; payload: Buffer;
  /** The payload's length as the frame header gave it (DATA payloads are not kept, see keepData). */
  length: number;
}

export interface RawH2Options {
  /** The client's SETTINGS (identifier, value), e.g. a small SETTINGS_INITIAL_WINDOW_SIZE (0x4). */
  settings?: Array<[number, number]>;
  /** Keep DATA payloads (body()); off by default, as watches may stream for long. */
  keepData?: boolean;
  /** Do not give DATA's window back: the test sends WINDOW_UPDATE itself. */
  manualWindow?: boolean;
  /** Bytes sent instead of the connection preface. */
  preface?: Buffer;
}

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK integer with an N-bit prefix (RFC 7541 5.1), first byte's high bits in `mask`. */
function hpackInt(value: number, prefixBits: number, mask: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [mask | value];
  const out = [mask | max];
  let v = value - max;
  while (v >= 128) { out.push((v % 128) + 128); v = Math.floor(v / 128); }
  out.push(v);
  return out;
}

function hpackString(s: string): Buffer {
  const bytes = Buffer.from(s, 'latin1');
  return Buffer.concat([Buffer.from(hpackInt(bytes.length, 7, 0)), bytes]);
}

/** A request's header block: static-table pseudo-headers, literals without indexing for the rest. */
export function requestHeaderBlock(method: 'GET' | 'POST', path: string, authority: string, extra: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from([method === 'GET' ? 0x82 : 0x83, 0x87])];
  parts.push(Buffer.from(hpackInt(4, 4, 0)), hpackString(path)); // :path, name index 4
  parts.push(Buffer.from(hpackInt(1, 4, 0)), hpackString(authority)); // :authority, name index 1
  for (const [k, v] of Object.entries(extra)) parts.push(Buffer.from([0]), hpackString(k), hpackString(v));
  return Buffer.concat(parts);
}

/** A header block of literal fields as given (no index, no Huffman): for requests that break the rules. */
export function literalHeaderBlock(fields: Array<[string, string]>): Buffer {
  return Buffer.concat(fields.flatMap(([k, v]) => [Buffer.from([0]), hpackString(k), hpackString(v)]));
}

/** A literal field with incremental indexing and a new name (RFC 7541 6.2.1): it enters the decoder's dynamic table. */
export function indexedLiteralField(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackString(name), hpackString(value)]);
}

export class RawH2 {
  readonly frames: Frame[] = [];
  closed = false;
  goaway?: { lastStreamId: number; errorCode: number };
  /** SETTINGS the server sent first, by identifier. */
  serverSettings = new Map<number, number>();
  private readonly counts = new Map<number, number>();
  private buffer: Buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private nextId = 1;

  /** DATA payloads by stream, when connected with keepData. */
  private readonly bodies = new Map<number, Buffer[]>();

  private constructor(readonly socket: tls.TLSSocket, private readonly opts: RawH2Options = {}) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const end = () => { this.closed = true; this.notify(); };
    socket.on('close', end);
    socket.on('error', end);
  }

  static connect(url: string, creds: { ca: string; cert?: string; key?: string }, opts: RawH2Options = {}): Promise<RawH2> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: u.hostname, port: Number(u.port), ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['h2'], servername: 'localhost' }, () => {
        if (socket.alpnProtocol !== 'h2') { reject(new Error(`ALPN chose ${socket.alpnProtocol}`)); return; }
        const c = new RawH2(socket, opts);
        const settings = Buffer.alloc(6 * (opts.settings?.length ?? 0));
        opts.settings?.forEach(([id, value], i) => { settings.writeUInt16BE(id, 6 * i); settings.writeUInt32BE(value, 6 * i + 2); });
        socket.write(Buffer.concat([opts.preface ?? PREFACE, frame(FRAME.SETTINGS, 0, 0, settings)]));
        resolve(c);
      });
      socket.once('error', reject);
    });
  }

  /** A new client stream id (odd, increasing). */
  streamId(): number {
    const id = this.nextId;
    this.nextId += 2;
    return id;
  }

  /** HEADERS (split into CONTINUATION frames above the server's frame size) for stream `id`. */
  headersFrames(id: number, block: Buffer, endStream = true): Buffer {
    const max = this.serverSettings.get(0x5) ?? 16_384; // SETTINGS_MAX_FRAME_SIZE
    if (block.length <= max) return frame(FRAME.HEADERS, 0x4 | (endStream ? 0x1 : 0), id, block);
    const out = [frame(FRAME.HEADERS, endStream ? 0x1 : 0, id, block.subarray(0, max))];
    for (let i = max; i < block.length; i += max) {
      const last = i + max >= block.length;
      out.push(frame(FRAME.CONTINUATION, last ? 0x4 : 0, id, block.subarray(i, i + max)));
    }
    return Buffer.concat(out);
  }

  rstFrame(id: number, code: number = H2_ERROR.CANCEL): Buffer {
    const p = Buffer.alloc(4);
    p.writeUInt32BE(code);
    return frame(FRAME.RST_STREAM, 0, id, p);
  }

  /** Writes bytes; resolves when the socket took them (false if it is gone). */
  write(bytes: Buffer): Promise<boolean> {
    if (this.closed || this.socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const ok = this.socket.write(bytes, (err) => { if (err) resolve(false); });
      if (ok) return resolve(true);
      // A server that closes the connection (GOAWAY, then close) while bytes wait: no 'drain' will come.
      const onDrain = () => { this.socket.off('close', onClose); resolve(true); };
      const onClose = () => { this.socket.off('drain', onDrain); resolve(false); };
      this.socket.once('drain', onDrain);
      this.socket.once('close', onClose);
    });
  }

  /**
   * Writes `total` units, unit(i) making the i-th (a frame or a few), gathered into writes of
   * about 64 KiB, each awaited; stops early when the server ends the connection. Resolves with
   * the units written.
   */
  async flood(total: number, unit: (i: number) => Buffer): Promise<number> {
    let sent = 0;
    while (sent < total && !this.closed) {
      const batch: Buffer[] = [];
      let bytes = 0;
      while (sent + batch.length < total && bytes < 64 * 1024) {
        const b = unit(sent + batch.length);
        batch.push(b);
        bytes += b.length;
      }
      if (!await this.write(batch.length === 1 ? batch[0] : Buffer.concat(batch, bytes))) break;
      sent += batch.length;
    }
    return sent;
  }

  /** Writes one frame as given. */
  send(type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)): Promise<boolean> {
    return this.write(frame(type, flags, id, payload));
  }

  /** The DATA received on stream `id` (connected with keepData). */
  body(id: number): Buffer {
    return Buffer.concat(this.bodies.get(id) ?? []);
  }

  /** The stream's response ended (END_STREAM on HEADERS or DATA). */
  ended(id: number): boolean {
    return this.frames.some((f) => f.streamId === id && (f.type === FRAME.HEADERS || f.type === FRAME.DATA) && (f.flags & 0x1) !== 0);
  }

  /** The frames of `type` (for stream `id` if given). */
  of(type: number, id?: number): Frame[] {
    return this.frames.filter((f) => f.type === type && (id === undefined || f.streamId === id));
  }

  rstCode(id: number): number | undefined {
    const f = this.of(FRAME.RST_STREAM, id)[0];
    return f ? f.payload.readUInt32BE(0) : undefined;
  }

  /** Waits until `cond` holds (checked on every frame and on close), or throws after `timeoutMs`. */
  until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (!cond()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      this.waiters.push(check);
    });
  }

  close(): void {
    this.socket.destroy();
    this.closed = true;
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= 9) {
      const len = this.buffer.readUIntBE(0, 3);
      if (this.buffer.length < 9 + len) break;
      const f: Frame = { type: this.buffer[3], flags: this.buffer[4], streamId: this.buffer.readUInt32BE(5) & 0x7fffffff, payload: this.buffer.subarray(9, 9 + len), length: len };
      this.buffer = this.buffer.subarray(9 + len);
      this.onFrame(f);
    }
    this.notify();
  }

  /** Frames of `type` received so far: cheap enough for until() on every chunk of a flood, unlike of(). */
  count(type: number): number {
    return this.counts.get(type) ?? 0;
  }

  private onFrame(f: Frame): void {
    this.counts.set(f.type, this.count(f.type) + 1);
    // DATA payloads are not kept (watches may stream) unless asked for; the rest is.
    if (f.type === FRAME.DATA && this.opts.keepData) {
      let parts = this.bodies.get(f.streamId);
      if (!parts) this.bodies.set(f.streamId, (parts = []));
      parts.push(Buffer.from(f.payload));
    }
    this.frames.push(f.type === FRAME.DATA ? { ...f, payload: Buffer.alloc(0) } : f);
    if (f.type === FRAME.SETTINGS && !(f.flags & 0x1)) {
      if (this.serverSettings.size === 0) {
        for (let i = 0; i + 6 <= f.payload.length; i += 6) this.serverSettings.set(f.payload.readUInt16BE(i), f.payload.readUInt32BE(i + 2));
      }
      this.socket.write(frame(FRAME.SETTINGS, 0x1, 0));
    } else if (f.type === FRAME.PING && !(f.flags & 0x1)) {
      this.socket.write(frame(FRAME.PING, 0x1, 0, f.payload));
    } else if (f.type === FRAME.GOAWAY) {
      this.goaway = { lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff, errorCode: f.payload.readUInt32BE(4) };
    } else if (f.type === FRAME.DATA && f.payload.length > 0 && !this.opts.manualWindow) {
      // Keep the server's DATA flowing: give the window back, to the stream and the connection.
      const inc = Buffer.alloc(4);
      inc.writeUInt32BE(f.payload.length);
      this.socket.write(Buffer.concat([frame(FRAME.WINDOW_UPDATE, 0, 0, inc), frame(FRAME.WINDOW_UPDATE, 0, f.streamId, inc)]));
    }
  }
}
