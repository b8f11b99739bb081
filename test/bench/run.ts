/**
 * The benchmark driver (`make bench ARGS='--quick'`): runs each selected benchmark against its
 * own etcd and server process, prints one table to stdout and writes the rows as JSON.
 * Exits 1 when a benchmark failed (the others still run), 2 on a bad flag.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Benchmark, ResultRow } from './benchmark';
import { BenchEnvironment, startBenchEnvironment } from './environment';
import { formatTable, hostInfo, RunReport, writeReport } from './report';
import { watchFanout } from './watch-fanout.bench';
import { listBench } from './list.bench';

/** Every benchmark, in run order. A new one is a new file plus one entry here. */
const BENCHMARKS: Benchmark[] = [watchFanout, listBench];

const USAGE = `usage: node dist/test/bench/run.js [--quick] [--out=FILE] [--only=NAME,...] [--server-cpu-prof=DIR]
  --quick               smaller data and shorter phases (whole run under ~2 minutes)
  --out=FILE            JSON results (default bench-results.json)
  --only=NAME,...       run only these benchmarks
  --server-cpu-prof=DIR write a V8 CPU profile of each server process into DIR (open in Chrome DevTools)
benchmarks:
${BENCHMARKS.map((b) => `  ${b.name.padEnd(14)} ${b.description}`).join('\n')}`;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        out: { type: 'string', default: 'bench-results.json' },
        only: { type: 'string' },
        'server-cpu-prof': { type: 'string' },
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
  const only = flags.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((n) => !BENCHMARKS.some((b) => b.name === n)) ?? [];
  if (unknown.length) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  const selected = BENCHMARKS.filter((b) => !only || only.includes(b.name));
  const serverNodeArgs = flags['server-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(flags['server-cpu-prof'])}`] : [];

  const report: RunReport = { startedAt: new Date().toISOString(), quick: flags.quick, failures: [], host: hostInfo(), rows: [] };
  let current: BenchEnvironment | undefined;
  // Ctrl-C and SIGTERM still stop etcd and the server and remove their temp dirs.
  const onSignal = (sig: NodeJS.Signals) => {
    log(`${sig}: stopping`);
    void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const t0 = Date.now();
  for (const bench of selected) {
    log(`${bench.name}: starting etcd and the server`);
    const started = Date.now();
    try {
      current = await startBenchEnvironment({ serverNodeArgs });
      const rows: ResultRow[] = await bench.run({ quick: flags.quick, env: current, log });
      report.rows.push(...rows);
    } catch (err) {
      const error = err instanceof Error ? err.stack ?? err.message : String(err);
      report.failures.push({ benchmark: bench.name, error });
      log(`${bench.name} FAILED: ${error}`);
      if (current) log(`server stderr (tail):\n${current.serverStderrTail()}`);
    } finally {
      await current?.stop().catch((err) => log(`cleanup of ${bench.name} failed: ${String(err)}`));
      current = undefined;
    }
    log(`${bench.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  process.stdout.write(`${formatTable(report.rows)}\n`);
  for (const f of report.failures) process.stdout.write(`FAILED ${f.benchmark}: ${f.error.split('\n')[0]}\n`);
  await writeReport(flags.out, report);
  log(`${selected.length} benchmark(s) in ${((Date.now() - t0) / 1000).toFixed(1)} s; results written to ${flags.out}`);
  return report.failures.length ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
