/**
 * The benchmark driver (`make bench ARGS='--quick'`): runs each selected benchmark against its
 * own etcd and server process, prints one table to stdout and writes the rows as JSON.
 * Exits 1 when a benchmark failed (the others still run), 2 on a bad flag, 130 when interrupted.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Benchmark, ResultRow } from './benchmark';
import { BenchEnvironment, startBenchEnvironment } from './environment';
import { formatTable, hostInfo, RunReport, writeReport } from './report';
import { watchFanout } from './watch-fanout.bench';
import { nodeWatchFanout } from './node-watch-fanout.bench';
import { watchDelivery } from './watch-delivery.bench';
import { listBench } from './list.bench';
import { applyBench } from './apply.bench';
import { crudBench } from './crud.bench';
import { memoryBench } from './memory.bench';
import { authnBench } from './authn.bench';
import { authzBench } from './authz.bench';
import { admissionBench } from './admission.bench';
import { metricsOverheadBench } from './metrics-overhead.bench';
import { crdBench } from './crd.bench';
import { workloadsBench } from './workloads.bench';
import { etcdClientBench } from './etcd-client.bench';
import { encryptionBench } from './encryption.bench';
import { load4xBench } from './load-4x.bench';
import { idleWatchesBench } from './idle-watches';
import { newConnectionBench } from './http1-new-connection.bench';
import { workersBench } from './workers.bench';
import { abBench } from './ab.bench';
import { h2FloorBench } from './h2-floor.bench';
import { httpStacksBench } from './http-stacks.bench';
import { apfBench } from './apf.bench';
import { quotaBench } from './quota.bench';
import { vapBench } from './vap.bench';
import { celCrdBench } from './cel-crd.bench';
import { aggregationBench } from './aggregation.bench';
import { openApiV2Bench } from './openapi-v2.bench';
import { startupBench } from './startup.bench';
import { densityBench } from './density.bench';
import { steadyStateBench } from './steady-state.bench';
import { tokenRequestsBench } from './token-requests.bench';

/** Every benchmark, in run order. A new one is a new file plus one entry here. */
const BENCHMARKS: Benchmark[] = [
  crudBench, watchDelivery, watchFanout, nodeWatchFanout, listBench, applyBench, authnBench, authzBench, admissionBench, metricsOverheadBench, crdBench, workloadsBench,
  encryptionBench,
  memoryBench,
  etcdClientBench,
  load4xBench,
  idleWatchesBench,
  newConnectionBench,
  workersBench,
  httpStacksBench,
  apfBench,
  quotaBench,
  vapBench,
  celCrdBench,
  aggregationBench,
  startupBench,
];
/**
 * Run only when named in --only (ab compares with --base-build or --base-arg; h2-floor is an experiment of its own;
 * density and steady-state need root and the 1.20.2 binaries of test/control-plane/build.sh, and run for many
 * minutes: density compares with kube-apiserver 1.20.2, steady-state idles a hollow-node cluster for 10 minutes;
 * openapi-v2 makes 200 CRDs to measure one rebuild of a large document; token-requests compares with --base-build when given).
 */
const ON_REQUEST: Benchmark[] = [abBench, h2FloorBench, densityBench, steadyStateBench, openApiV2Bench, tokenRequestsBench];

const USAGE = `usage: node dist/test/bench/run.js [--quick] [--out=FILE] [--only=NAME,...] [--focus=TEXT] [--server-cpu-prof=DIR] [--server-node-arg=FLAG ...]
  --quick               smaller data and shorter phases (whole run under ~2 minutes)
  --out=FILE            JSON results (default bench-results.json)
  --only=NAME,...       run only these benchmarks
  --focus=TEXT          measure only the cells whose metric contains TEXT (crud, list), e.g. --focus='update (PUT with resourceVersion) c=64'
  --server-cpu-prof=DIR write a V8 CPU profile of each server process into DIR (open in Chrome DevTools)
  --server-node-arg=FLAG  a Node/V8 flag for each server process (repeatable), e.g. --server-node-arg=--max-semi-space-size=32
  --server-arg=FLAG     a server flag for each benchmark's server (repeatable), e.g. --server-arg=--workers=2
  --base-build=DIR      the dist/ directory of another build, for --only=ab (default: this build)
  --base-arg=FLAG       a server flag for the ab benchmark's base side only (repeatable)
  --base-node-arg=FLAG  a Node/V8 flag for the ab benchmark's base server only (repeatable; after --server-node-arg, so it wins)
  --nodes=N             hollow nodes of the cluster benchmarks (steady-state: 20, --quick 4)
benchmarks:
${BENCHMARKS.map((b) => `  ${b.name.padEnd(14)} ${b.description}`).join('\n')}
on request only (--only=NAME):
${ON_REQUEST.map((b) => `  ${b.name.padEnd(14)} ${b.description}`).join('\n')}`;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        out: { type: 'string', default: 'bench-results.json' },
        only: { type: 'string' },
        focus: { type: 'string' },
        'server-cpu-prof': { type: 'string' },
        'server-node-arg': { type: 'string', multiple: true },
        'server-arg': { type: 'string', multiple: true },
        'base-build': { type: 'string' },
        'base-arg': { type: 'string', multiple: true },
        'base-node-arg': { type: 'string', multiple: true },
        nodes: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const nodes = flags.nodes === undefined ? undefined : Number(flags.nodes);
  if (nodes !== undefined && !(Number.isInteger(nodes) && nodes > 0)) {
    process.stderr.write(`--nodes must be a positive integer, not ${flags.nodes}\n${USAGE}\n`);
    return 2;
  }
  const only = flags.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const known = [...BENCHMARKS, ...ON_REQUEST];
  const unknown = only?.filter((n) => !known.some((b) => b.name === n)) ?? [];
  if (unknown.length) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  const selected = only ? known.filter((b) => only.includes(b.name)) : BENCHMARKS;
  const serverNodeArgs = [
    ...(flags['server-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(flags['server-cpu-prof'])}`] : []),
    ...(flags['server-node-arg'] ?? []),
  ];

  const report: RunReport = { startedAt: new Date().toISOString(), quick: flags.quick, focus: flags.focus, failures: [], host: hostInfo(), rows: [] };
  let current: BenchEnvironment | undefined;
  let interrupted: NodeJS.Signals | undefined;
  // A signal stops the running benchmark's etcd and server (its requests then fail fast) and
  // runs no further benchmark; the loop below still cleans up. A second signal exits at once.
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = sig;
    log(`${sig}: stopping`);
    void current?.stop().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const t0 = Date.now();
  let succeeded = 0;
  for (const bench of selected) {
    if (interrupted) break;
    log(`${bench.name}: starting etcd and the server`);
    const started = Date.now();
    try {
      current = await startBenchEnvironment({ serverNodeArgs: [...serverNodeArgs, ...(bench.serverNodeArgs ?? [])], serverArgs: flags['server-arg'] });
      if (interrupted) throw new Error(`interrupted by ${interrupted}`);
      const rows: ResultRow[] = await bench.run({
        quick: flags.quick, focus: flags.focus, env: current, log, baseBuild: flags['base-build'], baseArgs: flags['base-arg'] ?? [], serverArgs: flags['server-arg'] ?? [],
        serverNodeArgs: flags['server-node-arg'] ?? [], baseNodeArgs: flags['base-node-arg'] ?? [], nodes,
      });
      // Numbers measured while the environment was being torn down mean nothing.
      if (interrupted) throw new Error(`interrupted by ${interrupted}`);
      report.rows.push(...rows);
      succeeded++;
    } catch (err) {
      const error = err instanceof Error ? err.stack ?? err.message : String(err);
      report.failures.push({ benchmark: bench.name, error: interrupted ? `interrupted by ${interrupted}` : error });
      if (!interrupted) {
        log(`${bench.name} FAILED: ${error}`);
        if (current) log(`server stderr (tail):\n${current.serverStderrTail()}`);
      }
    } finally {
      await current?.stop().catch((err) => log(`cleanup of ${bench.name} failed: ${String(err)}`));
      current = undefined;
    }
    log(`${bench.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  process.stdout.write(`${formatTable(report.rows)}\n`);
  for (const f of report.failures) process.stdout.write(`FAILED ${f.benchmark}: ${f.error.split('\n')[0]}\n`);
  await writeReport(flags.out, report);
  log(`${succeeded} of ${selected.length} benchmark(s) succeeded in ${((Date.now() - t0) / 1000).toFixed(1)} s; results written to ${flags.out}`);
  if (interrupted) return 130;
  return report.failures.length ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
