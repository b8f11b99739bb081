// Mocha reporter: the spec reporter's output, then one closing line "N passed, N failed".
import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(EVENT_TEST_PASS, () => { passed++; });
    runner.on(EVENT_TEST_FAIL, () => { failed++; });
    runner.on(EVENT_TEST_PENDING, () => { skipped++; });
    // Registered after the spec reporter's own run-end handler, so this line comes last; written
    // synchronously because mocha's --exit ends the process right after run end.
    runner.once(EVENT_RUN_END, () => {
      process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    });
  }
}

export = SummaryReporter;
