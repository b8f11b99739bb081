/**
 * A loopback TCP port free at the moment of asking (listened on, then released): where a test
 * needs an address nothing answers at, or a port to give a server it starts itself.
 */
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
