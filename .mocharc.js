// Unit, integration and e2e suites run from the compiled output; the summary reporter
// ends every run with the line "N passed, N failed". `npx mocha` runs them all one file after
// another; `make test` runs the same spec in two groups (test/run/main.ts, test/run/suite-groups.ts).
module.exports = {
  spec: ['dist/test/unit/**/*.test.js', 'dist/test/integration/**/*.test.js', 'dist/test/e2e/**/*.test.js',
    // The fuzz suite with a modest number of inputs per property (make test-fuzz runs many more).
    'dist/test/fuzz/**/*.test.js'],
  reporter: 'dist/test/helpers/summary-reporter.js',
  timeout: 30000,
  exit: true,
};
