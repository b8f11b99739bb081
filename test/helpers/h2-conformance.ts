/**
 * The HTTP/2 conformance suite's server and client (test/integration/h2-conformance-*.test.ts).
 * One server per file: --http2-server=own, or node:http2's side with ORCH_H2_CONFORMANCE=node
 * (for comparison). One connection per case, as h2spec does: a RawH2 that writes its own frames,
 * a per-connection HPACK encoder with a dynamic table (so every request after an error also
 * checks that the server's HPACK state stayed in step), and a decoder for the server's blocks.
 *
 * The assertions are the exact answers RFC 9113 asks for:
 *  - connection error: GOAWAY with the code and the last stream id, then the socket closes;
 *  - stream error: exactly one RST_STREAM on that stream with the code, no GOAWAY, the request
 *    not answered (unless it already was), and a new request on the connection served.
 * A failure's message lists the frames the server sent.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { FRAME, RawH2, RawH2Options } from './raw-h2';
import { HpackEncoder } from './hpack-encoder';
import { startTestServer, TestServer } from './server-harness';
import { HpackDecoder } from '../../lib/http2/hpack';

export const IMPL: 'own' | 'node' = process.env.ORCH_H2_CONFORMANCE === 'node' ? 'node' : 'own';

export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
/** HEADERS that end both the header block and the stream. */
export const WHOLE = FLAG.END_HEADERS | FLAG.END_STREAM;

const CODE_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED',
  'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
const TYPE_NAMES = ['DATA', 'HEADERS', 'PRIORITY', 'RST_STREAM', 'SETTINGS', 'PUSH_PROMISE', 'PING', 'GOAWAY', 'WINDOW_UPDATE', 'CONTINUATION'];
export const codeName = (code: number | undefined) => code === undefined ? 'none' : CODE_NAMES[code] ?? `0x${code.toString(16)}`;

/** Requests whose answers the cases rely on. */
export const PATH = {
  /** 200 "ok", whatever the method's body. */
  healthz: '/healthz',
  /** Answers 200 at once and stays open: the stream is half-closed (remote) once the client ended it. */
  watch: '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=30',
  /** A POST here reads its whole body before answering: the stream stays open until END_STREAM. */
  configMaps: '/api/v1/namespaces/default/configmaps',
} as const;

/** A ConfigMap to create, as JSON; exactly `size` bytes when given. */
export function configMapJson(name: string, size?: number): Buffer {
  const make = (v: string) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } }));
  const bare = make('');
  return size === undefined ? bare : make('x'.repeat(size - bare.length));
}

export interface ConformanceServer {
  t: TestServer;
  url: string;
  authority: string;
  creds: { ca: string; cert: string; key: string };
}

export async function startConformanceServer(): Promise<ConformanceServer> {
  const t = await startTestServer([`--http2-server=${IMPL}`]);
  const creds = { ca: t.server.pki.caCertPem, cert: readFileSync(t.server.pki.adminCertFile, 'utf8'), key: readFileSync(t.server.pki.adminKeyFile, 'utf8') };
  return { t, url: t.server.url, authority: new URL(t.server.url).host, creds };
}

/** A suite's server and connections: one server for the `describe` it is called in, its connections closed after each test. */
export interface ConformanceSuite {
  readonly server: ConformanceServer;
  open(opts?: Parameters<typeof H2Conn.open>[1]): Promise<H2Conn>;
}

export function useConformanceServer(): ConformanceSuite {
  let server: ConformanceServer | undefined;
  const conns: H2Conn[] = [];
  before(async () => { server = await startConformanceServer(); });
  afterEach(() => { for (const c of conns.splice(0)) c.close(); });
  after(async () => { await server?.t.stop(); });
  return {
    get server() {
      if (!server) throw new Error('the conformance server has not started');
      return server;
    },
    async open(opts) {
      const c = await H2Conn.open(this.server, opts);
      conns.push(c);
      return c;
    },
  };
}

export const JSON_TYPE: [string, string] = ['content-type', 'application/json'];

/** A u32 payload (WINDOW_UPDATE increment, RST_STREAM code). */
export const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n >>> 0); return b; };
/** A SETTINGS payload. */
export const settings = (...pairs: Array<[number, number]>) => Buffer.concat(pairs.map(([id, v]) => { const b = Buffer.alloc(6); b.writeUInt16BE(id); b.writeUInt32BE(v >>> 0, 2); return b; }));
/** A PRIORITY payload (also the priority fields of HEADERS). */
export const priority = (dependsOn: number, weight: number, exclusive = false) => Buffer.concat([u32((exclusive ? 0x80000000 : 0) + dependsOn), Buffer.from([weight])]);
/** A padded payload: Pad Length, the data, `pad` zero octets. */
export const padded = (pad: number, data: Buffer) => Buffer.concat([Buffer.from([pad]), data, Buffer.alloc(pad)]);

export class H2Conn {
  readonly hpack = new HpackEncoder();
  private next = 1;
  private readonly decoder = new HpackDecoder();
  private decodedUpTo = 0;
  private pending?: { id: number; parts: Buffer[] };
  private readonly blocks = new Map<number, Array<Record<string, string>>>();

  private constructor(readonly raw: RawH2, readonly authority: string) {}

  /** Connects; unless `handshake` is false, waits for the server's SETTINGS and the ACK of ours (h2spec's handshake). */
  static async open(server: ConformanceServer, opts: RawH2Options & { handshake?: boolean } = {}): Promise<H2Conn> {
    const raw = await RawH2.connect(server.url, server.creds, { keepData: true, ...opts });
    // Small frames, answered at once: no Nagle delay between a request and what follows it.
    raw.socket.setNoDelay(true);
    const c = new H2Conn(raw, server.authority);
    if (opts.handshake !== false) {
      await c.wait(() => c.settingsFrames(false).length > 0 && c.settingsFrames(true).length > 0, 5_000, 'the handshake');
    }
    return c;
  }

  /** A new stream id: odd, above every id used so far. */
  streamId(): number {
    const id = this.next;
    this.next += 2;
    return id;
  }

  /** A request's fields: the four pseudo-headers (https, this server's authority), then `extra`. */
  fields(method: string, path: string, extra: Array<[string, string]> = []): Array<[string, string]> {
    return [[':method', method], [':scheme', 'https'], [':path', path], [':authority', this.authority], ...extra];
  }

  /** A header block for `fields`, as a client with a dynamic table encodes it. */
  block(fields: ReadonlyArray<readonly [string, string]>): Buffer {
    return this.hpack.encode(fields);
  }

  send(type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)): Promise<boolean> {
    if (type === FRAME.HEADERS && id % 2 === 1) this.next = Math.max(this.next, id + 2);
    return this.raw.send(type, flags, id, payload);
  }

  /** HEADERS carrying `fields` (encoded now) or a block as given. */
  headers(id: number, fields: ReadonlyArray<readonly [string, string]> | Buffer, flags: number = WHOLE): Promise<boolean> {
    return this.send(FRAME.HEADERS, flags, id, Buffer.isBuffer(fields) ? fields : this.block(fields));
  }

  /** A request on a new stream; ends the stream unless `end` is false. Returns its id. */
  async request(method: string, path: string, opts: { end?: boolean; extra?: Array<[string, string]> } = {}): Promise<number> {
    const id = this.streamId();
    await this.headers(id, this.fields(method, path, opts.extra), FLAG.END_HEADERS | (opts.end === false ? 0 : FLAG.END_STREAM));
    return id;
  }

  /** Waits until `cond` holds; on timeout, fails with the frames seen by then. */
  async wait(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    try {
      await this.raw.until(cond, timeoutMs, what);
    } catch {
      throw new Error(`${what}: not within ${timeoutMs} ms; ${this.log()}`);
    }
  }

  /** A watch whose response has begun: its stream is half-closed (remote) and stays so. */
  async watch(): Promise<number> {
    const id = await this.request('GET', PATH.watch);
    await this.wait(() => this.responses(id).length > 0 || this.raw.closed, 5_000, 'the watch\'s HEADERS');
    return id;
  }

  /** Sends a PING and waits for its ACK: the frames before it have been read by the server. */
  async ping(data = Buffer.from('barrier!')): Promise<void> {
    await this.send(FRAME.PING, 0, 0, data);
    const acked = () => this.pingAcks().some((p) => p.equals(data));
    await this.wait(() => acked() || this.raw.closed, 3_000, 'the PING ACK');
    if (!acked()) throw new Error(`the PING not acknowledged; ${this.log()}`);
  }

  pingAcks(): Buffer[] {
    return this.raw.of(FRAME.PING).filter((f) => f.flags & FLAG.ACK).map((f) => f.payload);
  }

  settingsFrames(ack: boolean) {
    return this.raw.of(FRAME.SETTINGS).filter((f) => ((f.flags & FLAG.ACK) !== 0) === ack);
  }

  /** Waits `ms` for frames that must not come. */
  settle(ms = 300): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }

  /** The decoded header blocks the server sent on stream `id`, in order. */
  responses(id: number): Array<Record<string, string>> {
    this.decodeNew();
    return this.blocks.get(id) ?? [];
  }

  status(id: number): number | undefined {
    const s = this.responses(id)[0]?.[':status'];
    return s === undefined ? undefined : Number(s);
  }

  body(id: number): string {
    return this.raw.body(id).toString();
  }

  rstCodes(id: number): string[] {
    return this.raw.of(FRAME.RST_STREAM, id).map((f) => codeName(f.payload.readUInt32BE(0)));
  }

  /** Waits for the end of stream `id`'s response (or a reset, or the connection's end). */
  async answered(id: number, timeoutMs = 5_000): Promise<void> {
    await this.raw.until(() => this.raw.ended(id) || this.raw.of(FRAME.RST_STREAM, id).length > 0 || this.raw.closed, timeoutMs, `stream ${id}'s answer`)
      .catch(() => undefined);
  }

  /** Stream `id` (a GET /healthz) was answered 200 "ok". */
  async expectOk(id: number): Promise<void> {
    await this.answered(id);
    expect({ status: this.status(id), body: this.body(id), rst: this.rstCodes(id) }, this.log()).to.deep.equal({ status: 200, body: 'ok', rst: [] });
  }

  /** Stream `id` (a POST of configMapJson(name)) created the ConfigMap: 201 with it. */
  async expectCreated(id: number, name: string): Promise<void> {
    await this.answered(id);
    let created: string | undefined;
    try { created = JSON.parse(this.body(id)).metadata?.name; } catch { created = undefined; }
    expect({ status: this.status(id), name: created }, this.log()).to.deep.equal({ status: 201, name });
  }

  /** A new request on this connection is answered: 200 "ok" for GET /healthz. */
  async served(): Promise<void> {
    const id = await this.request('GET', PATH.healthz);
    await this.answered(id);
    expect({ status: this.status(id), body: this.body(id) }, `a request after it on the same connection: ${this.log()}`)
      .to.deep.equal({ status: 200, body: 'ok' });
  }

  /** Connection error: GOAWAY with `code` and `lastStreamId`, then the socket closes. */
  async expectConnectionError(code: number, lastStreamId: number): Promise<void> {
    await this.raw.until(() => this.raw.goaway !== undefined || this.raw.closed, 3_000, 'GOAWAY').catch(() => undefined);
    // RFC 9113 5.4.1: after the GOAWAY the endpoint MUST close the TCP connection.
    await this.raw.until(() => this.raw.closed, 1_000, 'the close').catch(() => undefined);
    const g = this.raw.goaway;
    expect({ goaway: codeName(g?.errorCode), lastStreamId: g?.lastStreamId, closed: this.raw.closed }, this.log())
      .to.deep.equal({ goaway: codeName(code), lastStreamId, closed: true });
  }

  /**
   * Stream error: one RST_STREAM with `code` on stream `id`, no GOAWAY, no response on the stream
   * (`answered`: the response had begun; 'either': the request may have been answered before the
   * offending frame was read), and a new request served.
   */
  async expectStreamError(id: number, code: number, opts: { answered?: boolean | 'either' } = {}): Promise<void> {
    // A response that ends now, where the reset was due, will not be followed by one.
    const endedBefore = this.raw.ended(id);
    await this.raw.until(() => this.raw.of(FRAME.RST_STREAM, id).length > 0 || this.raw.goaway !== undefined || this.raw.closed
      || (!endedBefore && this.raw.ended(id)), 3_000, 'RST_STREAM').catch(() => undefined);
    const answered = opts.answered ?? false;
    const seen = { rst: this.rstCodes(id), goaway: codeName(this.raw.goaway?.errorCode), answered: answered === 'either' ? 'either' : this.responses(id).length > 0 };
    expect(seen, this.log()).to.deep.equal({ rst: [codeName(code)], goaway: 'none', answered });
    await this.served();
    expect(this.rstCodes(id), `RST_STREAM sent more than once: ${this.log()}`).to.have.length(1);
  }

  /** The server let it pass: no RST_STREAM on `id` (if given), no GOAWAY, the connection serves on. */
  async expectAccepted(id?: number): Promise<void> {
    await this.ping();
    expect({ rst: id === undefined ? [] : this.rstCodes(id), goaway: codeName(this.raw.goaway?.errorCode), closed: this.raw.closed }, this.log())
      .to.deep.equal({ rst: [], goaway: 'none', closed: false });
    await this.served();
  }

  /** The frames the server sent, for failure messages (runs of the same frame counted). */
  log(): string {
    this.decodeNew();
    const shown: string[] = [];
    const heads = new Map<number, number>();
    for (const f of this.raw.frames) {
      const type = TYPE_NAMES[f.type] ?? `type 0x${f.type.toString(16)}`;
      let s = `${type}[${f.streamId}]`;
      if (f.type === FRAME.SETTINGS || f.type === FRAME.PING) s = `${type}${f.flags & FLAG.ACK ? ' ACK' : ''}`;
      else if (f.type === FRAME.RST_STREAM) s += ` ${codeName(f.payload.readUInt32BE(0))}`;
      else if (f.type === FRAME.GOAWAY) s = `GOAWAY last=${f.payload.readUInt32BE(0) & 0x7fffffff} ${codeName(f.payload.readUInt32BE(4))}${f.length > 8 ? ` "${f.payload.subarray(8).toString()}"` : ''}`;
      else if (f.type === FRAME.WINDOW_UPDATE) s += ` +${f.payload.readUInt32BE(0)}`;
      else if (f.type === FRAME.DATA) s += ` ${f.length}B`;
      else if (f.type === FRAME.HEADERS) {
        const n = heads.get(f.streamId) ?? 0;
        heads.set(f.streamId, n + 1);
        s += ` :status ${this.blocks.get(f.streamId)?.[n]?.[':status'] ?? '?'}`;
      }
      if ((f.type === FRAME.DATA || f.type === FRAME.HEADERS) && f.flags & FLAG.END_STREAM) s += ' END_STREAM';
      const last = shown[shown.length - 1];
      const m = last && /^(.*) x(\d+)$/.exec(last);
      if (last === s) shown[shown.length - 1] = `${s} x2`;
      else if (m && m[1] === s) shown[shown.length - 1] = `${s} x${Number(m[2]) + 1}`;
      else shown.push(s);
    }
    if (this.raw.closed) shown.push('(closed)');
    // Many streams' frames: the first few and the last ones tell the story.
    const cut = shown.length > 40 ? [...shown.slice(0, 5), `(${shown.length - 35} more)`, ...shown.slice(-30)] : shown;
    return `frames from the server: ${cut.join(', ')}`;
  }

  close(): void {
    this.raw.close();
  }

  /** Decodes the server's header blocks not yet decoded, in order (the HPACK state is the connection's). */
  private decodeNew(): void {
    const frames = this.raw.frames;
    for (; this.decodedUpTo < frames.length; this.decodedUpTo++) {
      const f = frames[this.decodedUpTo];
      let fragment: Buffer;
      if (f.type === FRAME.HEADERS) {
        let start = 0;
        let end = f.payload.length;
        if (f.flags & FLAG.PADDED) { start = 1; end -= f.payload[0]; }
        if (f.flags & FLAG.PRIORITY) start += 5;
        fragment = f.payload.subarray(start, end);
        this.pending = { id: f.streamId, parts: [] };
      } else if (f.type === FRAME.CONTINUATION && this.pending) {
        fragment = f.payload;
      } else {
        continue;
      }
      const p = this.pending!;
      p.parts.push(fragment);
      if (!(f.flags & FLAG.END_HEADERS)) continue;
      this.pending = undefined;
      let fields: Record<string, string>;
      try {
        fields = Object.fromEntries(this.toPairs(this.decoder.fields(Buffer.concat(p.parts))));
      } catch (err) {
        fields = { ':error': (err as Error).message };
      }
      const list = this.blocks.get(p.id) ?? [];
      list.push(fields);
      this.blocks.set(p.id, list);
    }
  }

  private toPairs(flat: string[]): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
    return out;
  }
}
