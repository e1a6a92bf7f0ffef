/**
 * Hooks through the headless CLI (issue 29), on both back ends: the user's from
 * ~/.claude/settings.json and --settings (a file or JSON, repeatable), the workspace's only with
 * --trust-workspace-hooks, each run a line on stderr (a `hook_run` event in stream-json), a blocked
 * prompt a failed run, and settings with problems named before the first prompt.
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { EXIT } from '../../src/cli/run';
import { BACKENDS, say } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';
import { resultsIn } from '../support/hookSession';

const hookRuns = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === 'hook_run' ? [event.run] : []));
const settingsWith = (hooks: Record<string, unknown>) => JSON.stringify({ hooks });
const command = (text: string, matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: text }] }];
const DENY_RM = `grep -q '"rm ' && { echo "no rm here" >&2; exit 2; }; exit 0`;

for (const backend of BACKENDS) {
  describe(`hooks in the CLI [${backend.name}]`, function () {
    this.timeout(60_000);
    const cli = useCliFixture(backend, { home: true, args: ['--yes'] });

    it('runs the hooks of ~/.claude/settings.json: a PreToolUse exit 2 refuses the call, and stream-json carries the run', async () => {
      const { fake, home, workspace } = cli();
      fs.mkdirSync(path.join(home, '.claude'));
      fs.writeFileSync(path.join(home, '.claude', 'settings.json'), settingsWith({ PreToolUse: command(DENY_RM, 'Bash') }));
      fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep');
      fake.enqueue(say.toolUse('run_shell', { command: 'rm keep.txt' }, { id: 'toolu_rm' }), say.text('It was refused.'));
      const run = await cli().run(['--output-format', 'stream-json', '-p', 'remove keep.txt']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.ok(fs.existsSync(path.join(workspace, 'keep.txt')));
      assert.deepEqual(resultsIn(fake.requests()[1]), ['Blocked by a PreToolUse hook: no rm here']);
      assert.deepEqual(
        hookRuns(run.events).map((hook) => [hook.event, hook.source, hook.outcome, hook.exitCode]),
        [['PreToolUse', '~/.claude/settings.json', 'denied', 2]],
      );
    });

    it('takes --settings as a file or JSON, repeatable, and prints each run on stderr in text mode', async () => {
      const { fake } = cli();
      const file = path.join(cli().tempDir('evergreen-cli-settings-'), 'hooks.json');
      fs.writeFileSync(file, settingsWith({ UserPromptSubmit: command('echo "Sprint goal: ship hooks"') }));
      fake.enqueue(say.text('Noted.'));
      const run = await cli().run(['--settings', file, '--settings', settingsWith({ Stop: command('echo "done" > /dev/null') }), '-p', 'hello']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.match(run.stderr, /⚙ UserPromptSubmit hook \([^)]*hooks\.json\): echo "Sprint goal: ship hooks" — ok, \d+ ms · output: \S+hook-UserPromptSubmit\.txt/);
      assert.match(run.stderr, /⚙ Stop hook \(--settings\): echo "done" > \/dev\/null — ok, \d+ ms\n/);
      assert.match(JSON.stringify(fake.requests()[0]!.messages), /Sprint goal: ship hooks/);
    });

    it("runs the workspace's hooks only with --trust-workspace-hooks, in the sandbox, and says how otherwise", async () => {
      const { fake, workspace } = cli();
      fs.mkdirSync(path.join(workspace, '.claude'));
      fs.writeFileSync(path.join(workspace, '.claude', 'settings.json'), settingsWith({ UserPromptSubmit: command('echo "repo context"') }));
      fake.enqueue(say.text('One.'), say.text('Two.'));
      const refused = await cli().run(['--output-format', 'stream-json', '-p', 'hello']);
      assert.equal(refused.code, EXIT.ok, refused.stderr);
      assert.deepEqual(hookRuns(refused.events), []);
      const notice = refused.events.find((event) => event.type === 'hook_notice');
      assert.ok(notice?.type === 'hook_notice');
      assert.match(said(notice.message), /This workspace defines hooks that do not run: UserPromptSubmit: echo "repo context" .*run with --trust-workspace-hooks to allow them/);
      assert.doesNotMatch(JSON.stringify(fake.requests()[0]!.messages), /repo context/);

      const trusted = await cli().run(['--output-format', 'stream-json', '--trust-workspace-hooks', '-p', 'hello']);
      assert.equal(trusted.code, EXIT.ok, trusted.stderr);
      assert.deepEqual(
        hookRuns(trusted.events).map((hook) => [hook.scope, hook.sandboxed, hook.outcome]),
        [['workspace', true, 'ok']],
      );
      assert.match(JSON.stringify(fake.requests()[1]!.messages), /repo context/);
    });

    it('fails the run when a UserPromptSubmit hook blocks the prompt, with its reason, and sends nothing', async () => {
      const { fake } = cli();
      const run = await cli().run(['--settings', settingsWith({ UserPromptSubmit: command('echo "prompts are frozen" >&2; exit 2') }), '-p', 'hello']);
      assert.equal(run.code, EXIT.failed);
      assert.match(run.stderr, /error: A UserPromptSubmit hook blocked this prompt; it was not sent: prompts are frozen/);
      assert.equal(fake.requests().length, 0);
    });

    it('names a settings file with problems and a missing --settings file, and goes on with the hooks that are right', async () => {
      const { fake, home } = cli();
      fs.mkdirSync(path.join(home, '.claude'));
      fs.writeFileSync(path.join(home, '.claude', 'settings.json'), settingsWith({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '', timeout: -1 }] }], Stop: command('true') }));
      fake.enqueue(say.text('Hi.'));
      const run = await cli().run(['--settings', 'nowhere.json', '-p', 'hello']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.match(run.stderr, /warning: Hook settings \S+\/\.claude\/settings\.json \$\.hooks\.PreToolUse\[0\]\.hooks\[0\]\.command: must not be empty\./);
      assert.match(run.stderr, /warning: Hook settings \S+nowhere\.json: does not exist\./);
      assert.match(run.stderr, /⚙ Stop hook \(~\/\.claude\/settings\.json\): true — ok/);
    });
  });
}
