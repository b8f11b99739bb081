/**
 * A TCP relay in front of etcd that can lose an answer: once armed, it still forwards what the
 * client sends, but swallows everything etcd sends back and, shortly after etcd has answered,
 * cuts every connection. A write sent then reaches etcd and is applied, and the client only
 * sees its connection lost: the indeterminate outcome of a write during a network fault.
 */
import * as net from 'node:net';

export interface CuttingRelay {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** How many times it has cut. */
  cuts: number;
  /** The next answer from etcd is swallowed and the connections cut; resolves once they are. */
  loseNextAnswer(): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttingRelay(targetPort: number, graceMs = 200): Promise<CuttingRelay> {
  const sockets = new Set<net.Socket>();
  let armed: (() => void) | undefined;
  let cutTimer: NodeJS.Timeout | undefined;
  const cutAll = () => {
    for (const s of [...sockets]) s.destroy();
  };
  const server = net.createServer((down) => {
    const up = net.connect(targetPort, '127.0.0.1');
    const end = () => { down.destroy(); up.destroy(); sockets.delete(down); sockets.delete(up); };
    for (const s of [down, up]) { sockets.add(s); s.on('error', end).on('close', end); }
    down.on('data', (chunk: Buffer) => up.write(chunk));
    up.on('data', (chunk: Buffer) => {
      if (!armed) {
        down.write(chunk);
        return;
      }
      // etcd has answered (or is about to): drop it, give etcd a moment, then cut.
      if (cutTimer === undefined) {
        const done = armed;
        cutTimer = setTimeout(() => {
          cutTimer = undefined;
          armed = undefined;
          relay.cuts++;
          cutAll();
          done();
        }, graceMs);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relay: CuttingRelay = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cuts: 0,
    loseNextAnswer: () => new Promise<void>((resolve) => { armed = resolve; }),
    close: () => new Promise<void>((resolve) => {
      if (cutTimer !== undefined) clearTimeout(cutTimer);
      cutAll();
      server.close(() => resolve());
    }),
  };
  return relay;
}
