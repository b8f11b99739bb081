/**
 * The HTTP/2 client's health check (lib/http2/ping-health.ts, Go's ReadIdleTimeout and
 * PingTimeout) against a peer of the test's own over plain TCP (prior knowledge): a peer that
 * answers PINGs keeps its connection however long it is quiet; one that has stopped answering
 * gets a PING, and when its ACK does not come the session ends with Go's `http2: client
 * connection lost`, the request in flight on it closed. A session without the option sends no
 * PING.
 */
import { expect } from 'chai';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { H2Session, type H2Stream } from '../../../lib/http2/client-session';
import { FLAG_ACK, FRAME_HEADER, HEADERS, PING, PREFACE, SETTINGS, frameOf, settingsFrame } from '../../../lib/http2/frames';
import { encodeHeaderBlock } from '../../../lib/http2/hpack';
import { CONNECTION_LOST } from '../../../lib/http2/ping-health';

interface Peer {
  port: number;
  /** Answer PINGs with their ACK (a live peer); false: read and say nothing (a hung one). */
  answering: boolean;
  pings: number;
  headers: number;
  /** The peer's side of the connection closed. */
  closed: boolean;
  stop(): Promise<void>;
}

/** A minimal HTTP/2 server side: SETTINGS exchanged, PINGs counted (and ACKed while `answering`), requests counted and never answered. */
async function startPeer(): Promise<Peer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buf = Buffer.alloc(0);
    let prefaced = false;
    socket.on('close', () => { peer.closed = true; });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!prefaced) {
        if (buf.length < PREFACE.length) return;
        buf = buf.subarray(PREFACE.length);
        prefaced = true;
        socket.write(settingsFrame([]));
      }
      while (buf.length >= FRAME_HEADER) {
        const length = buf.readUIntBE(0, 3);
        if (buf.length < FRAME_HEADER + length) return;
        const type = buf[3];
        const flags = buf[4];
        const payload = buf.subarray(FRAME_HEADER, FRAME_HEADER + length);
        buf = buf.subarray(FRAME_HEADER + length);
        if (!peer.answering) {
          if (type === PING) peer.pings++;
          continue;
        }
        if (type === SETTINGS && !(flags & FLAG_ACK)) socket.write(frameOf(SETTINGS, FLAG_ACK, 0));
        if (type === PING && !(flags & FLAG_ACK)) {
          peer.pings++;
          socket.write(frameOf(PING, FLAG_ACK, 0, Buffer.from(payload)));
        }
        if (type === HEADERS) peer.headers++;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const peer: Peer = {
    port: (server.address() as AddressInfo).port, answering: true, pings: 0, headers: 0, closed: false,
    stop: async () => { for (const s of sockets) s.destroy(); await new Promise((r) => server.close(r)); },
  };
  return peer;
}

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const GET = () => encodeHeaderBlock([[':method', 'GET'], [':scheme', 'http'], [':authority', 'peer'], [':path', '/hang']]);

describe('HTTP/2 client health check (PING after a quiet read side)', function () {
  this.timeout(30_000);
  let peer: Peer;
  let session: H2Session | undefined;

  beforeEach(async () => { peer = await startPeer(); });
  afterEach(async () => {
    session?.destroy();
    session = undefined;
    await peer.stop();
  });

  it('a peer that answers its PINGs keeps the connection while quiet', async () => {
    session = new H2Session({ host: '127.0.0.1', port: peer.port, readIdleTimeoutMs: 30, pingTimeoutMs: 5_000 });
    await until(() => peer.pings >= 3, 'three PINGs answered');
    expect(session.destroyed).to.equal(false);
    expect(peer.closed).to.equal(false);
  });

  it('a peer that stops answering: a PING, then the session ends with `http2: client connection lost` and the request on it is closed', async () => {
    const s = new H2Session({ host: '127.0.0.1', port: peer.port, readIdleTimeoutMs: 50, pingTimeoutMs: 200 });
    session = s;
    let closed: H2Stream | undefined;
    s.on('error', () => undefined);
    const ended = new Promise<void>((r) => s.once('close', () => r()));
    s.request(GET(), { onHeaders: () => undefined, onData: () => undefined, onClose: (st) => { closed = st; } }, undefined, true);
    await until(() => peer.headers === 1, 'the request reached the peer');
    peer.answering = false;
    await ended;
    expect(peer.pings).to.be.at.least(1);
    expect(s.error?.message).to.equal(CONNECTION_LOST);
    expect(closed, 'the stream in flight was closed').to.not.equal(undefined);
    expect(closed!.ended).to.equal(false);
    await until(() => peer.closed, 'the connection closed');
  });

  it('without readIdleTimeoutMs no PING is sent', async () => {
    session = new H2Session({ host: '127.0.0.1', port: peer.port });
    session.request(GET(), { onHeaders: () => undefined, onData: () => undefined, onClose: () => undefined }, undefined, true);
    await until(() => peer.headers === 1, 'the request reached the peer');
    await new Promise((r) => setTimeout(r, 200));
    expect(peer.pings).to.equal(0);
    expect(session.destroyed).to.equal(false);
  });
});
