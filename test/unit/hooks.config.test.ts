// Hook definitions (src/core/hooks/config.ts, load.ts, consent.ts, matcher.ts): Claude Code's
// settings format from every place they live, the problems a bad file or entry gives (loading goes
// on), consent keys over the whole definition, who may run, and the matchers.
import { said } from '../support/said';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, MAX_HOOK_TIMEOUT_SECONDS, describeHook, parseHookSettingsValue, type ConfiguredHook } from '../../src/core/hooks/config';
import { sortHooksByConsent } from '../../src/core/hooks/consent';
import { hooksFor } from '../../src/core/hooks/dispatch';
import type { HookCall } from '../../src/core/hooks/events';
import { loadHooks } from '../../src/core/hooks/load';
import { compileMatcher, matches, type HookMatcher } from '../../src/core/hooks/matcher';
import { defineHook } from '../support/hookFixtures';
import { useTempDirs } from '../support/tempDirs';

const origin = { scope: 'user' as const, source: '/home/u/.claude/settings.json', label: '~/.claude/settings.json' };
const command = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command: text, ...extra });

describe('hooks: configuration', () => {
  const temp = useTempDirs();
  let base: string;
  let home: string;
  let workspace: string;
  const write = (file: string, content: unknown): string => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const settingsWith = (event: string, cmd: string, matcher?: string) => ({ hooks: { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: [command(cmd)] }] } });

  beforeEach(() => {
    base = temp.make('evergreen-hooks-config-');
    home = path.join(base, 'home');
    workspace = path.join(base, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
  });

  describe('the format', () => {
    it("reads Claude Code's shape: event, matcher groups, command handlers with their timeout", () => {
      const settings = parseHookSettingsValue(
        { permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [command('./a.sh', { timeout: 5 }), command('./b.sh')] }], Stop: [{ hooks: [command('./c.sh')] }] } },
        origin,
      );
      assert.deepEqual(settings.problems, []);
      assert.deepEqual(
        settings.hooks.map((hook) => [hook.event, hook.matcher, hook.command, hook.timeoutSeconds, hook.where]),
        [
          ['PreToolUse', 'Bash', './a.sh', 5, '/home/u/.claude/settings.json $.hooks.PreToolUse[0].hooks[0]'],
          ['PreToolUse', 'Bash', './b.sh', DEFAULT_HOOK_TIMEOUT_SECONDS, '/home/u/.claude/settings.json $.hooks.PreToolUse[0].hooks[1]'],
          ['Stop', undefined, './c.sh', DEFAULT_HOOK_TIMEOUT_SECONDS, '/home/u/.claude/settings.json $.hooks.Stop[0].hooks[0]'],
        ],
      );
      assert.equal(settings.hooks[0]!.origin, origin);
    });

    it('a bad entry is a problem with its JSON path and drops only itself', () => {
      const settings = parseHookSettingsValue(
        {
          hooks: {
            PreToolUse: [{ matcher: 'Bash', hooks: [command(''), command('./ok.sh'), { type: 'command', command: 3 }, command('./t.sh', { timeout: -1 })] }, { matcher: 5, hooks: [] }, 'nope'],
            PostToolUse: { matcher: 'x' },
            PreTolUse: [],
          },
        },
        origin,
      );
      assert.deepEqual(
        settings.hooks.map((hook) => hook.command),
        ['./ok.sh'],
      );
      const wheres = settings.problems.map((problem) => `${problem.level} ${problem.where.replace(`${origin.source} `, '')}`);
      assert.deepEqual(wheres, [
        'error $.hooks.PreToolUse[0].hooks[0].command',
        'error $.hooks.PreToolUse[0].hooks[2].command',
        'error $.hooks.PreToolUse[0].hooks[3].timeout',
        'error $.hooks.PreToolUse[1].matcher',
        'error $.hooks.PreToolUse[2]',
        'error $.hooks.PostToolUse',
        'error $.hooks.PreTolUse',
      ]);
      assert.match(said(settings.problems[0]!.message), /must not be empty/);
      assert.match(said(settings.problems[6]!.message), /unknown hook event "PreTolUse"/);
    });

    it("what Claude Code runs but Evergreen does not is an info problem: other hook types, events it never fires, async, if", () => {
      const settings = parseHookSettingsValue(
        {
          hooks: {
            PermissionRequest: [{ hooks: [command('./p.sh')] }],
            PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url: 'http://localhost:1' }, { type: 'prompt', prompt: 'ok?' }, command('./bg.sh', { async: true, if: 'Bash(rm *)' })] }],
          },
        },
        origin,
      );
      assert.deepEqual(
        settings.hooks.map((hook) => hook.command),
        ['./bg.sh'],
      );
      assert.ok(settings.problems.every((problem) => problem.level === 'info'), JSON.stringify(settings.problems));
      assert.deepEqual(
        settings.problems.map((problem) => problem.where.replace(`${origin.source} `, '')),
        ['$.hooks.PermissionRequest', '$.hooks.PreToolUse[0].hooks[0].type', '$.hooks.PreToolUse[0].hooks[1].type', '$.hooks.PreToolUse[0].hooks[2].async', '$.hooks.PreToolUse[0].hooks[2].if'],
      );
    });

    it(`a timeout over ${MAX_HOOK_TIMEOUT_SECONDS} s is cut to it with a notice; a shell other than bash is refused`, () => {
      const settings = parseHookSettingsValue({ hooks: { Stop: [{ hooks: [command('./long.sh', { timeout: 1e9 }), command('./ps.ps1', { shell: 'powershell' })] }] } }, origin);
      assert.deepEqual(
        settings.hooks.map((hook) => [hook.command, hook.timeoutSeconds]),
        [['./long.sh', MAX_HOOK_TIMEOUT_SECONDS]],
      );
      assert.deepEqual(
        settings.problems.map((problem) => problem.level),
        ['info', 'error'],
      );
    });

    it('a matcher that is not a valid regular expression is a problem, not a crash, and its group does not run', () => {
      const settings = parseHookSettingsValue({ hooks: { PreToolUse: [{ matcher: 'Bash(', hooks: [command('./x.sh')] }, { matcher: 'Write', hooks: [command('./y.sh')] }] } }, origin);
      assert.deepEqual(
        settings.hooks.map((hook) => hook.command),
        ['./y.sh'],
      );
      assert.equal(settings.problems.length, 1);
      assert.match(said(settings.problems[0]!.message), /"Bash\(" is not a valid regular expression/);
      // On an event without matchers Claude Code ignores the matcher; so does Evergreen.
      assert.equal(parseHookSettingsValue({ hooks: { Stop: [{ matcher: 'Bash(', hooks: [command('./z.sh')] }] } }, origin).hooks.length, 1);
    });
  });

  describe('loading from every place', () => {
    it('reads the setting, the user files, --settings (a file or JSON text) and the workspace files, user hooks first', async () => {
      write(path.join(home, '.claude/settings.json'), settingsWith('Stop', 'claude-home'));
      write(path.join(home, '.evergreen/settings.json'), '// Evergreen files take comments\n' + JSON.stringify(settingsWith('Stop', 'evergreen-home')).replace(/}$/, ',}'));
      const cliFile = write(path.join(base, 'cli.json'), settingsWith('Stop', 'cli-file'));
      write(path.join(workspace, '.claude/settings.json'), settingsWith('Stop', 'ws-claude'));
      write(path.join(workspace, '.claude/settings.local.json'), settingsWith('Stop', 'ws-local'));
      write(path.join(workspace, '.evergreen/settings.json'), settingsWith('Stop', 'ws-evergreen'));
      const loaded = await loadHooks({
        userSetting: { Stop: [{ hooks: [command('setting')] }] },
        homeDir: home,
        workspaceRoot: workspace,
        settings: [cliFile, JSON.stringify(settingsWith('Stop', 'cli-text'))],
      });
      assert.deepEqual(loaded.problems, []);
      assert.deepEqual(
        loaded.hooks.map((hook) => [hook.command, hook.origin.scope, hook.origin.label]),
        [
          ['setting', 'user', 'evergreen.hooks'],
          ['claude-home', 'user', '~/.claude/settings.json'],
          ['evergreen-home', 'user', '~/.evergreen/settings.json'],
          ['cli-file', 'user', cliFile],
          ['cli-text', 'user', '--settings'],
          ['ws-claude', 'workspace', '.claude/settings.json'],
          ['ws-local', 'workspace', '.claude/settings.local.json'],
          ['ws-evergreen', 'workspace', '.evergreen/settings.json'],
        ],
      );
    });

    it('a setting that is not a map of events is a problem naming the setting', async () => {
      const loaded = await loadHooks({ userSetting: [{ matcher: 'Bash' }] });
      assert.deepEqual(loaded.hooks, []);
      assert.deepEqual(
        loaded.problems.map((problem) => [problem.where, problem.level]),
        [['the setting evergreen.hooks $', 'error']],
      );
    });

    it("a broken file is a problem and the others still load; Claude Code's files are strict JSON", async () => {
      write(path.join(home, '.claude/settings.json'), '{ "hooks": { // a comment Claude Code refuses\n } }');
      write(path.join(workspace, '.claude/settings.json'), '{ "hooks": ');
      write(path.join(workspace, '.evergreen/settings.json'), settingsWith('Stop', 'survivor'));
      const loaded = await loadHooks({ homeDir: home, workspaceRoot: workspace, settings: [path.join(base, 'missing.json')] });
      assert.deepEqual(
        loaded.hooks.map((hook) => hook.command),
        ['survivor'],
      );
      assert.deepEqual(
        loaded.problems.map((problem) => [problem.where, said(problem.message).replace(/ at line.*/, '')]),
        [
          [path.join(home, '.claude/settings.json'), 'is not valid JSON: InvalidCommentToken'],
          [path.join(base, 'missing.json'), 'does not exist'],
          [path.join(workspace, '.claude/settings.json'), 'is not valid JSON: ValueExpected'],
        ],
      );
    });

    it('disableAllHooks: a user file turns every hook off; a workspace file only its own', async () => {
      write(path.join(home, '.claude/settings.json'), settingsWith('Stop', 'mine'));
      write(path.join(workspace, '.claude/settings.json'), { disableAllHooks: true });
      write(path.join(workspace, '.evergreen/settings.json'), settingsWith('Stop', 'theirs'));
      const workspaceOff = await loadHooks({ homeDir: home, workspaceRoot: workspace });
      assert.deepEqual(
        workspaceOff.hooks.map((hook) => hook.command),
        ['mine'],
      );
      assert.match(said(workspaceOff.problems[0]!.message), /workspace's hooks do not run \(yours still do\)/);
      const allOff = await loadHooks({ homeDir: home, workspaceRoot: workspace, settings: ['{"disableAllHooks": true}'] });
      assert.deepEqual(allOff.hooks, []);
      assert.equal(allOff.problems[0]!.where, '--settings (argument 1)');
    });
  });

  describe('consent', () => {
    const definition = { event: 'PreToolUse', matcher: 'Bash', command: './guard.sh', timeout: 10 };
    const keyOf = (change: Partial<typeof definition> & { args?: string[]; file?: string; scope?: 'user' | 'workspace' } = {}): string => {
      const d = { ...definition, ...change };
      const file = change.file ?? '.claude/settings.json';
      const settings = parseHookSettingsValue(
        { hooks: { [d.event]: [{ matcher: d.matcher, hooks: [command(d.command, { timeout: d.timeout, ...(change.args ? { args: change.args } : {}) })] }] } },
        { scope: change.scope ?? 'workspace', source: `/ws/${file}`, label: file },
      );
      return settings.hooks[0]!.consentKey;
    };

    it('the key is stable, and changes when any part of the definition changes', () => {
      const key = keyOf();
      assert.match(key, /^[0-9a-f]{64}$/);
      assert.equal(keyOf(), key);
      const variants = [
        keyOf({ event: 'PostToolUse' }),
        keyOf({ matcher: 'Bash|Write' }),
        keyOf({ command: './guard.sh --strict' }),
        keyOf({ timeout: 11 }),
        keyOf({ args: ['-v'] }),
        keyOf({ file: '.claude/settings.local.json' }),
        keyOf({ scope: 'user' }),
      ];
      assert.equal(new Set([key, ...variants]).size, variants.length + 1);
    });

    it('sorts hooks: the user runs; a trusted workspace runs what was consented and asks about the rest; an untrusted one runs nothing', () => {
      const user = defineHook('Stop', './mine.sh');
      const agreed = defineHook('Stop', './agreed.sh', { scope: 'workspace' });
      const fresh = defineHook('Stop', './fresh.sh', { scope: 'workspace' });
      const hooks = [user, agreed, fresh];
      const names = (list: readonly ConfiguredHook[]) => list.map((hook) => hook.command);

      const trusted = sortHooksByConsent(hooks, { consentedKeys: new Set([agreed.consentKey]), workspaceTrusted: true });
      assert.deepEqual([names(trusted.user), names(trusted.consented), names(trusted.needConsent), names(trusted.untrusted)], [['./mine.sh'], ['./agreed.sh'], ['./fresh.sh'], []]);
      assert.deepEqual(names(trusted.runnable), ['./mine.sh', './agreed.sh']);
      assert.deepEqual(trusted.notices, []);

      const cli = sortHooksByConsent(hooks, { consentedKeys: new Set(), workspaceTrusted: true, trustWorkspaceHooks: true });
      assert.deepEqual(names(cli.runnable), ['./mine.sh', './agreed.sh', './fresh.sh']);

      const untrusted = sortHooksByConsent(hooks, { consentedKeys: new Set([agreed.consentKey]), workspaceTrusted: false, trustWorkspaceHooks: true });
      assert.deepEqual([names(untrusted.runnable), names(untrusted.needConsent), names(untrusted.untrusted)], [['./mine.sh'], [], ['./agreed.sh', './fresh.sh']]);
      assert.match(said(untrusted.notices[0]!), /not trusted, so its 2 hooks do not run: Stop: \.\/agreed\.sh/);
    });

    it('describes a hook as the consent prompt shows it: the command as written', () => {
      assert.equal(said(describeHook(defineHook('PreToolUse', 'rm -rf "$HOME"', { matcher: 'Bash', scope: 'workspace', timeout: 5 }))), 'PreToolUse [Bash]: rm -rf "$HOME" (timeout 5 s, .claude/settings.json)');
      assert.equal(said(describeHook(defineHook('Stop', 'node', { args: ['${CLAUDE_PROJECT_DIR}/x.js'] }))), 'Stop: "node" "${CLAUDE_PROJECT_DIR}/x.js" (timeout 60 s, ~/.claude/settings.json)');
      // A command is data: braces in it are shown as written, never read as the template's placeholders.
      assert.equal(said(describeHook(defineHook('Stop', 'echo {command} {seconds}', { timeout: 2 }))), 'Stop: echo {command} {seconds} (timeout 2 s, ~/.claude/settings.json)');
    });

    it('lists several hooks in one notice, each as the consent prompt shows it', () => {
      const hooks = [defineHook('PreToolUse', './a.sh', { matcher: 'Bash', scope: 'workspace' }), defineHook('Stop', './b.sh', { matcher: 'ignored', scope: 'workspace', timeout: 5 }), defineHook('PostToolUse', './c.sh', { scope: 'workspace' })];
      const sorted = sortHooksByConsent(hooks, { consentedKeys: new Set(), workspaceTrusted: false });
      assert.equal(sorted.notices[0]?.kind, 'hooks.untrusted');
      assert.equal(
        said(sorted.notices[0]!),
        'This workspace is not trusted, so its 3 hooks do not run: PreToolUse [Bash]: ./a.sh (timeout 60 s, .claude/settings.json); Stop: ./b.sh (timeout 5 s, .claude/settings.json); PostToolUse: ./c.sh (timeout 60 s, .claude/settings.json). Trust the workspace to be asked about them.',
      );
    });
  });

  describe('matchers', () => {
    const compiled = (value: string | undefined): HookMatcher => {
      const result = compileMatcher(value);
      assert.ok(!('problem' in result), JSON.stringify(result));
      return result;
    };
    const tool = (toolName: string): HookCall => ({ event: 'PreToolUse', toolName, toolInput: {}, toolUseId: 't' });

    it('"*", "" and none match everything; letters and | or , are exact names; anything else is an unanchored regex', () => {
      for (const all of [undefined, '', '*']) assert.ok(matches(compiled(all), ['anything']));
      assert.ok(matches(compiled('Edit|Write'), ['Write']));
      assert.ok(matches(compiled('Edit, Write'), ['Edit']));
      assert.ok(!matches(compiled('Edit'), ['NotebookEdit']));
      assert.ok(matches(compiled('Edit.*'), ['NotebookEdit']));
      assert.ok(!matches(compiled('^Edit$'), ['NotebookEdit']));
      assert.ok(!matches(compiled('mcp__memory'), ['mcp__memory__create']), 'a bare server prefix is an exact name and matches no tool');
      assert.ok(matches(compiled('mcp__memory__.*'), ['mcp__memory__create']));
      assert.ok(!matches(compiled('mcp__memory__.*'), ['mcp__github__search']));
      assert.ok(matches(compiled('mcp__.*__write.*'), ['mcp__fs__write_file']));
      assert.ok('problem' in compileMatcher('[unclosed'));
    });

    it("Claude Code's tool names select Evergreen's equivalents, and Evergreen's own names work too", () => {
      const hooks = [
        defineHook('PreToolUse', 'bash-hook', { matcher: 'Bash' }),
        defineHook('PreToolUse', 'edit-hook', { matcher: 'Write|Edit' }),
        defineHook('PreToolUse', 'read-hook', { matcher: 'Read' }),
        defineHook('PreToolUse', 'search-hook', { matcher: 'Grep|Glob' }),
        defineHook('PreToolUse', 'agent-hook', { matcher: 'Agent' }),
        defineHook('PreToolUse', 'own-name-hook', { matcher: 'run_shell' }),
        defineHook('PreToolUse', 'mcp-hook', { matcher: 'mcp__github__.*' }),
        defineHook('PreToolUse', 'web-hook', { matcher: 'WebFetch' }),
        defineHook('PreToolUse', 'all-hook'),
      ];
      const selected = (name: string) => hooksFor(hooks, tool(name)).map((hook) => hook.command);
      assert.deepEqual(selected('run_shell'), ['bash-hook', 'own-name-hook', 'all-hook']);
      assert.deepEqual(selected('write_file'), ['edit-hook', 'all-hook']);
      assert.deepEqual(selected('edit_file'), ['edit-hook', 'all-hook']);
      assert.deepEqual(selected('read_file'), ['read-hook', 'all-hook']);
      assert.deepEqual(selected('grep_search'), ['search-hook', 'all-hook']);
      assert.deepEqual(selected('list_files'), ['search-hook', 'all-hook']);
      assert.deepEqual(selected('task'), ['agent-hook', 'all-hook']);
      assert.deepEqual(selected('mcp__github__search'), ['mcp-hook', 'all-hook']);
      assert.deepEqual(selected('web_fetch'), ['web-hook', 'all-hook']);
      assert.deepEqual(selected('recall'), ['all-hook']);
    });

    it('matchers of the other events test the source, trigger, reason, notification type or agent type', () => {
      const hooks = [
        defineHook('SessionStart', 'on-resume', { matcher: 'resume' }),
        defineHook('PreCompact', 'on-auto', { matcher: 'auto' }),
        defineHook('Notification', 'on-permission', { matcher: 'permission_prompt' }),
        defineHook('SubagentStop', 'on-explore', { matcher: 'explore' }),
        defineHook('SessionEnd', 'on-clear', { matcher: 'clear' }),
      ];
      const selected = (call: HookCall) => hooksFor(hooks, call).map((hook) => hook.command);
      assert.deepEqual(selected({ event: 'SessionStart', source: 'resume' }), ['on-resume']);
      assert.deepEqual(selected({ event: 'SessionStart', source: 'startup' }), []);
      assert.deepEqual(selected({ event: 'PreCompact', trigger: 'auto', customInstructions: '' }), ['on-auto']);
      assert.deepEqual(selected({ event: 'PreCompact', trigger: 'manual', customInstructions: '' }), []);
      assert.deepEqual(selected({ event: 'Notification', notificationType: 'permission_prompt', message: 'm' }), ['on-permission']);
      assert.deepEqual(selected({ event: 'SubagentStop', agent: { id: 'a', type: 'explore' }, lastAssistantMessage: '', continuations: 0 }), ['on-explore']);
      assert.deepEqual(selected({ event: 'SessionEnd', reason: 'other' }), []);
    });

    it('a command defined in several files runs once: the first definition, the user\'s before the workspace\'s', () => {
      const mine = defineHook('Stop', './same.sh', { timeout: 5 });
      const theirs = defineHook('Stop', './same.sh', { scope: 'workspace' });
      const selected = hooksFor([mine, theirs, defineHook('Stop', './other.sh')], { event: 'Stop', lastAssistantMessage: '', continuations: 0 });
      assert.deepEqual(
        selected.map((hook) => [hook.command, hook.origin.scope]),
        [
          ['./same.sh', 'user'],
          ['./other.sh', 'user'],
        ],
      );
    });
  });
});
