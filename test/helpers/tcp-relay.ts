/**
 * A TCP relay with a fixed address in front of an etcd whose port changes across restarts
 * (startEmbeddedEtcd picks fresh ports at every start), for tests that restart etcd under a client.
 */
import * as net from 'net';

export interface TcpRelay {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Sends new connections to `port`; cuts the open ones. */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<TcpRelay> {
  let target = targetPort;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(target, '127.0.0.1');
    const end = () => { down.destroy(); up.destroy(); sockets.delete(down); sockets.delete(up); };
    for (const s of [down, up]) { sockets.add(s); s.on('error', end).on('close', end); }
    down.pipe(up);
    up.pipe(down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    retarget(port: number) { target = port; for (const s of [...sockets]) s.destroy(); },
    close: () => new Promise<void>((resolve) => { for (const s of [...sockets]) s.destroy(); server.close(() => resolve()); }),
  };
}

export const portOf = (url: string): number => Number(new URL(url).port);
