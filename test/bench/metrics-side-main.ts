/**
 * A server for the metrics-overhead benchmark: main.js's flags and start-up line, with metrics
 * recording on or off by the first argument (`metrics=on|off`; no user-facing flag turns
 * metrics off). Both sides of the benchmark run this script with the same flags, so they differ
 * only in metrics.
 */
import { parseFlags } from '../../lib/server/flags';
import { startServer } from '../../lib/server/server';

async function main(): Promise<void> {
  const [side, ...flags] = process.argv.slice(2);
  if (side !== 'metrics=on' && side !== 'metrics=off') throw new Error(`first argument must be metrics=on or metrics=off, not ${side}`);
  const server = await startServer(parseFlags(flags), { metrics: side === 'metrics=on' });
  process.stdout.write(`\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  const stop = () => { server.stop().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`metrics bench server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
