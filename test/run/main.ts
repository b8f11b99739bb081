/**
 * The runner of `make test`: the suites of .mocharc.js (or the globs given) split into two groups
 * (test/run/suite-groups.ts), each one mocha process: first the parallel group (mocha --parallel,
 * `--jobs` files at a time, each in a worker process), then the serial group, one file at a time.
 * Each group's spec output streams through; the last line is "N passed, N failed" over all groups.
 *
 *   node dist/test/run/main.js [--jobs=N] [GLOB ...]
 *
 * Exit code 0 when every test passed, 1 when one failed or a group ended without its summary
 * (a crash, counted as one failure), 2 on a bad argument or a stale serial entry, 130 on a signal.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addSummaries, RunSummary, summaryLine } from './run-summary';
import { specFiles } from './spec-files';
import { splitSuites, unmatchedSerialSuites } from './suite-groups';

const ROOT = path.resolve(__dirname, '../../..');
const MOCHA = require.resolve('mocha/bin/mocha.js');
const REPORTER = path.resolve(__dirname, '../helpers/summary-reporter.js');
/** On 2 cores: integration suites mostly wait on etcd and timers, so one job more than the cores. */
const DEFAULT_JOBS = 3;

interface MochaRc { spec: string[]; timeout: number }

interface GroupResult { label: string; files: number; ms: number; summary?: RunSummary; exit: number | null }

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;

let interrupted: NodeJS.Signals | undefined;
let running: ReturnType<typeof spawn> | undefined;

/** Runs one mocha process over `files`; resolves with its summary (undefined when it wrote none). */
async function runGroup(label: string, files: string[], rc: MochaRc, parallelJobs: number | undefined, dir: string): Promise<GroupResult> {
  const summaryFile = path.join(dir, `${label.replace(/\W+/g, '-')}.json`);
  const args = [MOCHA, '--no-config', '--reporter', REPORTER,
    '--reporter-option', `summaryFile=${summaryFile}`, '--reporter-option', `label=${label}`,
    '--timeout', String(rc.timeout), '--exit',
    ...(parallelJobs ? ['--parallel', '--jobs', String(parallelJobs)] : []), ...files];
  const started = Date.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  running = child;
  const exit = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running = undefined;
  let summary: RunSummary | undefined;
  try {
    summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as RunSummary;
  } catch {
    summary = undefined;
  }
  return { label, files: files.length, ms: Date.now() - started, summary, exit };
}

async function main(argv: string[]): Promise<number> {
  let jobs = Number(process.env.TEST_JOBS) || DEFAULT_JOBS;
  const globs: string[] = [];
  for (const a of argv) {
    const m = /^--jobs=(\d+)$/.exec(a);
    if (m && Number(m[1]) >= 1) jobs = Number(m[1]);
    else if (a.startsWith('-')) {
      process.stderr.write(`unknown option ${a}\nusage: node dist/test/run/main.js [--jobs=N] [GLOB ...]\n`);
      return 2;
    } else globs.push(a);
  }
  const rc = require(path.join(ROOT, '.mocharc.js')) as MochaRc;
  const files = specFiles(globs.length ? globs : rc.spec, ROOT);
  if (!globs.length) {
    const stale = unmatchedSerialSuites(files);
    if (stale.length) {
      process.stderr.write(`test/run/suite-groups.ts names suites that do not exist: ${stale.join(', ')}\n`);
      return 2;
    }
  }
  if (!files.length) {
    process.stderr.write(`no test files match ${(globs.length ? globs : rc.spec).join(' ')} (was the build run?)\n`);
    return 2;
  }
  const groups = splitSuites(files);
  process.stdout.write(`${files.length} test files: ${groups.parallel.length} in parallel (${jobs} jobs), then ${groups.serial.length} one at a time\n`);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-test-run-'));
  const results: GroupResult[] = [];
  try {
    for (const [label, group, parallelJobs] of [['parallel group', groups.parallel, jobs], ['serial group', groups.serial, undefined]] as const) {
      if (interrupted || !group.length) continue;
      results.push(await runGroup(label, [...group], rc, parallelJobs, dir));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const total = addSummaries(results.map((r) => r.summary ?? { passed: 0, failed: 1, skipped: 0, fileMs: {} }));
  process.stdout.write('\n');
  for (const r of results) {
    const counted = r.summary ? summaryLine(r.summary) : `mocha exited with code ${r.exit} before its summary (counted as 1 failure)`;
    process.stdout.write(`${r.label} (${r.files} files): ${counted} in ${minutes(r.ms)}\n`);
  }
  const slowest = Object.entries(total.fileMs).filter(([, ms]) => ms >= 1000).sort((a, b) => b[1] - a[1]).slice(0, 8);
  if (slowest.length) {
    process.stdout.write(`slowest files: ${slowest.map(([f, ms]) => `${path.relative(ROOT, f)} ${Math.round(ms / 1000)} s`).join(', ')}\n`);
  }
  // The failures again at the end, so that a log cut to its tail still names them.
  for (const f of total.failures ?? []) {
    process.stdout.write(`failed: ${f.file ? `${path.relative(ROOT, f.file)}: ` : ''}${f.title}: ${f.error}\n`);
  }
  if (interrupted) process.stdout.write(`interrupted by ${interrupted}: the groups after it did not run\n`);
  // The closing line, always last.
  process.stdout.write(`${summaryLine(total)}\n`);
  if (interrupted) return 130;
  return total.failed || results.some((r) => r.exit !== 0) ? 1 : 0;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = sig;
    running?.kill(sig);
  });
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
