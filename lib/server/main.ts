/**
 * The process entry point: `npm start -- [flags]`. Flags are kube-apiserver's names; a bad
 * flag stops the start with a one-line reason. SIGINT/SIGTERM shut down gracefully.
 */
import { FlagError, helpText, parseFlags } from './flags';
import { startServer } from './server';
import { logger } from './logger';

async function main(): Promise<void> {
  let config;
  try {
    config = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`orch-apiserver: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (config.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  const server = await startServer(config);
  process.stdout.write([
    '',
    `orch-apiserver is serving at ${server.url}`,
    `admin kubeconfig: ${server.kubeconfigPath}`,
    `try: kubectl --kubeconfig ${server.kubeconfigPath} get namespaces`,
    '',
  ].join('\n'));
  let signals = 0;
  const onSignal = (sig: string) => {
    signals++;
    if (signals > 1) process.exit(1);
    logger.info('shutting down', { signal: sig });
    server.stop().then(() => process.exit(0), (err) => {
      logger.error('shutdown failed', { error: String(err) });
      process.exit(1);
    });
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`orch-apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
