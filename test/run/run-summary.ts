/**
 * The counts a mocha run ends with, as the summary reporter (test/helpers/summary-reporter.ts)
 * prints and writes them, and as the runner of `make test` adds them up over its groups.
 */

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** ms of tests and hooks per file (in parallel mode, the time in its worker). */
  fileMs: Record<string, number>;
  /** Each failed test or hook: its file, full title and the first line of its error. */
  failures?: FailureRecord[];
}

export interface FailureRecord { file?: string; title: string; error: string }

/** The closing line of every run: "N passed, N failed", with ", N skipped" when some were. */
export function summaryLine(s: Pick<RunSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ''}`;
}

/** The sum of several runs' summaries. */
export function addSummaries(runs: readonly RunSummary[]): RunSummary {
  const total: RunSummary = { passed: 0, failed: 0, skipped: 0, fileMs: {}, failures: [] };
  for (const r of runs) {
    total.passed += r.passed;
    total.failed += r.failed;
    total.skipped += r.skipped;
    Object.assign(total.fileMs, r.fileMs);
    total.failures!.push(...(r.failures ?? []));
  }
  return total;
}
