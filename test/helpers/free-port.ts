/**
 * A loopback TCP port free at the moment of asking (listened on, then released): where a test
 * needs an address nothing answers at, or a port to give a server it starts itself.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `count` distinct loopback ports free at the moment of asking (the embedded etcd's own helper). */
export { freeLoopbackPorts } from '../../lib/server/embedded-etcd';

/**
 * A free loopback port below the kernel's ephemeral range, for a process that is killed and
 * started again on the same port: a port from the ephemeral range (what port 0 gives) can be
 * taken in between as the source port of any outgoing connection, and the restart then fails
 * with EADDRINUSE.
 */
export async function stableLoopbackPort(): Promise<number> {
  const low = ephemeralLow();
  const from = Math.min(10_000, low - 1_000);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port)) return port;
  }
  return freeLoopbackPort();
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 2_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
