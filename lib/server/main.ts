/**
 * The process entry point: `npm start -- [flags]`. Flags are kube-apiserver's names; a bad
 * flag stops the start with a one-line reason. SIGINT/SIGTERM shut down gracefully.
 */
import type { ServerConfig } from '../config';
import { FlagError, flagsWithoutEffect, helpText, parseCommandLine, withoutEffectReasons } from './flags';
import { versionInfo } from '../api/version';
import { startServer } from './server';
import { configureLogger, logger } from '../logger';
import { ServerUrlMessage, startWorkers, WorkerReady } from './workers';
import { isMessage } from '../ipc';
import { WorkerRole, workerRoleFromEnv } from './worker-role';

async function main(): Promise<void> {
  let command;
  try {
    command = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`orch-apiserver: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const { config } = command;
  if (config.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (config.version) {
    // kube-apiserver's --version and --version=raw (envtest and scripts ask the binary this way).
    const info = versionInfo();
    process.stdout.write(config.version === 'raw' ? `${JSON.stringify(info)}\n` : `Kubernetes ${info.gitVersion}\n`);
    return;
  }
  configureLogger({ level: config.logLevel, verbosity: config.v, format: config.loggingFormat });
  const role = workerRoleFromEnv();
  if (role) {
    await runWorker(config, role);
    return;
  }
  // Once per command line: the workers of --workers, which parse the same one, keep quiet.
  if (flagsWithoutEffect(command.given).length) {
    logger.warn('these flags are accepted but have no effect here', { flags: withoutEffectReasons(command.given) });
  }
  let server;
  if (config.workers > 1) {
    server = await startWorkers(config, process.argv.slice(2));
  } else {
    server = await startServer(config);
  }
  process.stdout.write([
    '',
    `orch-apiserver is serving at ${server.url}${config.workers > 1 ? ` (${config.workers} workers)` : ''}`,
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

/**
 * A worker of --workers (workers.ts): serves, tells the primary, and drains on the SIGTERM the
 * primary sends. SIGINT is left to the primary (Ctrl-C reaches the whole process group; the
 * primary turns it into one SIGTERM per worker).
 */
async function runWorker(config: ServerConfig, role: WorkerRole): Promise<void> {
  process.on('SIGINT', () => undefined);
  const server = await startServer(role.etcdServers ? { ...config, etcdServers: role.etcdServers } : config, { worker: role });
  process.on('message', (m: unknown) => { if (isMessage<ServerUrlMessage>(m, 'orch-server-url')) server.adoptUrl(m.url); });
  const ready: WorkerReady = { type: 'orch-worker-ready', url: server.url, kubeconfigPath: server.kubeconfigPath };
  process.send?.(ready);
  // One drain, however many SIGTERMs: under systemd's default KillMode the whole control group
  // gets one and the primary forwards another. The primary's SIGKILL is the deadline.
  let stopping = false;
  process.on('SIGTERM', () => {
    if (stopping) return;
    stopping = true;
    server.stop().then(() => process.exit(0), (err) => {
      logger.error('worker shutdown failed', { worker: role.index, error: String(err) });
      process.exit(1);
    });
  });
}

main().catch((err) => {
  process.stderr.write(`orch-apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
