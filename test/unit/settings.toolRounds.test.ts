/**
 * The per-turn cap on tool rounds (issue 20) is a setting and a CLI flag, for long autonomous
 * turns: `evergreen.maxToolRoundsPerTurn` (read from the user's own settings: it decides what a
 * turn may cost) and `--max-tool-rounds`. Bad values keep the default and are named.
 */
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../src/cli/args';
import { DEFAULT_MAX_TOOL_ROUNDS_PER_TURN } from '../../src/core/agent/session';
import { parseSettings, type SettingsSource } from '../../src/extension/settingsValues';

function source(effective: Record<string, unknown>, user: Record<string, unknown> = effective): SettingsSource {
  return { get: (key) => effective[key], userValue: (key) => user[key] };
}

describe('tool rounds per turn: setting and CLI flag', () => {
  it('defaults to the session\'s cap and takes the user\'s value', () => {
    assert.equal(DEFAULT_MAX_TOOL_ROUNDS_PER_TURN, 500);
    assert.equal(parseSettings(source({})).maxToolRoundsPerTurn, 500);
    const settings = parseSettings(source({ maxToolRoundsPerTurn: 5_000 }));
    assert.equal(settings.maxToolRoundsPerTurn, 5_000);
    assert.deepEqual(settings.problems, []);
  });

  it('ignores a workspace value: only the user\'s own settings raise what a turn may cost', () => {
    const settings = parseSettings({ get: () => 50_000, userValue: () => undefined, workspaceValue: (key) => (key === 'maxToolRoundsPerTurn' ? 50_000 : undefined) });
    assert.equal(settings.maxToolRoundsPerTurn, 500);
  });

  it('keeps the default for a bad value and names it', () => {
    for (const bad of [0, 2.5, '10', 1_000_000]) {
      const settings = parseSettings(source({ maxToolRoundsPerTurn: bad }));
      assert.equal(settings.maxToolRoundsPerTurn, 500, String(bad));
      assert.ok(settings.problems.some((problem) => problem.startsWith('"evergreen.maxToolRoundsPerTurn" must be a whole number from 1 to 100,000')), settings.problems.join('\n'));
    }
  });

  it('--max-tool-rounds sets it in the CLI; the default otherwise; bad values are usage errors', () => {
    assert.equal(parseCliArgs(['-p', 'hi'], '/w').maxToolRoundsPerTurn, 500);
    assert.equal(parseCliArgs(['-p', 'hi', '--max-tool-rounds', '3000'], '/w').maxToolRoundsPerTurn, 3_000);
    for (const bad of ['0', 'many', '200000']) {
      assert.throws(() => parseCliArgs(['-p', 'hi', '--max-tool-rounds', bad], '/w'), (error: unknown) => error instanceof UsageError && error.message.startsWith('--max-tool-rounds must be'), bad);
    }
  });
});
