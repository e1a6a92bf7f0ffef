// Mocha's spec output plus a {passed, failed} file for scripts/test.mjs, which sums every suite.
const Mocha = require('mocha');
const fs = require('node:fs');

/** A failure in one line: the test's full title and the first line of its error (CI shows only the log's tail). */
const failureLine = (test, error) => `${test.fullTitle()}: ${String((error && error.message) || error).split('\n')[0].slice(0, 300)}`;

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) => failures.push(failureLine(test, error)));
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.EVERGREEN_TEST_RESULTS;
      if (file) fs.writeFileSync(file, JSON.stringify({ passed: this.stats.passes, failed: this.stats.failures, pending: this.stats.pending, failures }));
    });
  }
}

module.exports = CountingReporter;
