// Mocha's spec output plus a {passed, failed} file for scripts/test.mjs, which sums every suite.
const Mocha = require('mocha');
const fs = require('node:fs');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.EVERGREEN_TEST_RESULTS;
      if (file) fs.writeFileSync(file, JSON.stringify({ passed: this.stats.passes, failed: this.stats.failures, pending: this.stats.pending }));
    });
  }
}

module.exports = CountingReporter;
