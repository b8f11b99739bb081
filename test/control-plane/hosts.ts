/**
 * The hollow nodes' names on loopback. A hollow kubelet reports its name as its Hostname address,
 * and the server dials that address (--kubelet-preferred-address-types=Hostname) for logs, exec
 * and the node proxy: the names must resolve to 127.0.0.1 so that no connection leaves the machine
 * and no name goes to a DNS server. Names /etc/hosts does not map yet get one line, tagged with
 * this process's id and removed again by the returned function (written in place: /etc/hosts of a
 * container is often a bind mount that cannot be replaced).
 */
import { promises as dns } from 'node:dns';
import { readFileSync, writeFileSync } from 'node:fs';

const HOSTS = '/etc/hosts';

async function resolvesToLoopback(name: string): Promise<boolean> {
  try {
    const { address } = await dns.lookup(name, { family: 4 });
    return address === '127.0.0.1';
  } catch {
    return false;
  }
}

/** Maps `names` to 127.0.0.1; resolves with the undo (a no-op when nothing was added). */
export async function mapNamesToLoopback(names: string[]): Promise<() => void> {
  const missing: string[] = [];
  for (const n of names) if (!(await resolvesToLoopback(n))) missing.push(n);
  if (!missing.length) return () => undefined;
  const tag = `# orch-apiserver control-plane suite ${process.pid}`;
  const line = `127.0.0.1 ${missing.join(' ')} ${tag}`;
  const before = readFileSync(HOSTS, 'utf8');
  writeFileSync(HOSTS, `${before}${before.endsWith('\n') ? '' : '\n'}${line}\n`);
  for (const n of missing) {
    if (!(await resolvesToLoopback(n))) throw new Error(`${n} does not resolve to 127.0.0.1 after adding "${line}" to ${HOSTS}`);
  }
  return () => {
    const now = readFileSync(HOSTS, 'utf8');
    writeFileSync(HOSTS, now.split('\n').filter((l) => !l.endsWith(tag)).join('\n'));
  };
}
