/**
 * The server as main.js starts it (its flags, its "admin kubeconfig:" line, SIGTERM stopping
 * it), with the listener's limits from its first argument, a JSON Partial<ListenerLimits> such
 * as `{"headersTimeoutMs":2000}`; main.js's flags follow. Those limits are not flags
 * (kube-apiserver has none for them), so a test that needs a 2 s head timeout in a server it
 * runs as a process (to read its memory) starts this script.
 */
import { parseFlags } from '../../lib/server/flags';
import type { ListenerLimits } from '../../lib/http/limits';
import { startServer } from '../../lib/server/server';

async function main(): Promise<void> {
  const [limits, ...flags] = process.argv.slice(2);
  const listener = JSON.parse(limits ?? '') as Partial<ListenerLimits>;
  const server = await startServer(parseFlags(flags), { listener });
  process.stdout.write(`\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  const stop = () => { server.stop().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`listener-limits server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
