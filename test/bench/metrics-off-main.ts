/**
 * The server without metrics, for the metrics-overhead benchmark's baseline: main.js's flags and
 * start-up line, but startServer(config, { metrics: false }) (no user-facing flag turns metrics off).
 */
import { parseFlags } from '../../lib/server/flags';
import { startServer } from '../../lib/server/server';

async function main(): Promise<void> {
  const server = await startServer(parseFlags(process.argv.slice(2)), { metrics: false });
  process.stdout.write(`\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  const stop = () => { server.stop().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`metrics-off server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
