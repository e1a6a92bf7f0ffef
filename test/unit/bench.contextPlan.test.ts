/**
 * The context benchmark's workload (bench/context/workspace.ts): enough steps need an earlier
 * output exactly (issue 20: at least 20 of 300, 80 of 1,200), some of them after the workload
 * changed or deleted the file, and the plan says which.
 */
import assert from 'node:assert/strict';
import { NEED_EVERY, planStep } from '../../bench/context/workspace';

const info = {
  sourceFiles: Array.from({ length: 60 }, (_, i) => `src/mod${String(i).padStart(2, '0')}.ts`),
  logFiles: Array.from({ length: 6 }, (_, i) => `logs/build-${i}.log`),
};

describe('context bench: steps that need an earlier output exactly', () => {
  for (const [steps, least] of [[300, 20], [1_200, 80]] as const) {
    it(`${steps} steps: at least ${least} need one, some of them non-reproducible`, () => {
      const plans = Array.from({ length: steps }, (_, i) => planStep(i + 1, info));
      const needs = plans.filter((plan) => plan.needs);
      assert.ok(needs.length >= least, `${needs.length}`);
      const nonReproducible = needs.filter((plan) => !plan.needs!.reproducible);
      assert.ok(nonReproducible.length >= needs.length / 4, `${nonReproducible.length} of ${needs.length}`);
      for (const plan of needs) {
        const target = plans[plan.needs!.step - 1]!;
        assert.ok(['read_file', 'grep_search'].includes(target.name), `step ${plan.step} needs a read or a search`);
        assert.ok(plan.step - plan.needs!.step >= 20 && plan.step - plan.needs!.step <= 60);
        // Non-reproducible exactly when a step in between edits or deletes the file it read.
        const path = String(target.input.path);
        const touched = plans.slice(plan.needs!.step, plan.step - 1).some((p) => p.name === 'run_shell' && /^(rm -f|printf)/.test(String(p.input.command)) && String(p.input.command).includes(path));
        assert.equal(!plan.needs!.reproducible, target.name === 'read_file' && touched, `step ${plan.step}`);
      }
      assert.equal(plans.filter((plan) => plan.step % NEED_EVERY === 0 && plan.step >= 2 * NEED_EVERY).length, needs.length);
    });
  }
});
