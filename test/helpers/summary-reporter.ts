// Mocha reporter: the spec reporter's output, then one closing line "N passed, N failed".
// For the runner of `make test` (test/run/main.ts), which runs groups of suites as separate mocha
// processes and prints the closing line of them all: with `--reporter-option summaryFile=PATH`
// the counts (and each file's time) are also written to PATH as JSON, and with
// `--reporter-option label=TEXT` the line is "TEXT: N passed, N failed".
import { writeFileSync } from 'node:fs';
import Mocha from 'mocha';
import { RunSummary, summaryLine } from '../run/run-summary';

const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_HOOK_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const opts = (options?.reporterOptions ?? {}) as { summaryFile?: string; label?: string };
    const s: RunSummary = { passed: 0, failed: 0, skipped: 0, fileMs: {}, failures: [] };
    const time = (r: Mocha.Runnable) => {
      if (r.file && r.duration) s.fileMs[r.file] = (s.fileMs[r.file] ?? 0) + r.duration;
    };
    runner.on(EVENT_TEST_PASS, (t) => { s.passed++; time(t); });
    runner.on(EVENT_TEST_FAIL, (t, err: unknown) => {
      s.failed++;
      time(t);
      // In parallel mode the error arrives from the worker as a plain object, not an Error.
      const m = (err as { message?: unknown } | undefined)?.message;
      const message = typeof m === 'string' ? m : String(err);
      // The first line, and for a fast-check report the line naming what broke the property
      // (its first line only says after how many inputs), so CI's last lines tell the cause.
      const lines = message.split('\n');
      const cause = lines.find((l) => /^Got error: /.test(l.trim()));
      const error = cause && cause.trim() !== lines[0].trim() ? `${lines[0].slice(0, 200)} | ${cause.trim().slice(0, 400)}` : lines[0].slice(0, 300);
      s.failures!.push({ file: t.file, title: t.fullTitle(), error });
    });
    runner.on(EVENT_TEST_PENDING, () => { s.skipped++; });
    runner.on(EVENT_HOOK_END, time);
    // Registered after the spec reporter's own run-end handler, so this line comes last; written
    // synchronously because mocha's --exit ends the process right after run end.
    runner.once(EVENT_RUN_END, () => {
      if (opts.summaryFile) writeFileSync(opts.summaryFile, JSON.stringify(s));
      process.stdout.write(`\n${opts.label ? `${opts.label}: ` : ''}${summaryLine(s)}\n`);
    });
  }
}

export = SummaryReporter;
