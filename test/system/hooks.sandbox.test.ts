// Workspace hooks in the real OS sandbox (bubblewrap), from load to run: what a repository's
// .claude/settings.json makes run is confined like a command the model runs, while the user's own
// hook with the same command is not. Linux only, and never skipped there, like sandbox.os.test.ts.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { sortHooksByConsent } from '../../src/core/hooks/consent';
import { runHooks } from '../../src/core/hooks/dispatch';
import { loadHooks } from '../../src/core/hooks/load';
import { silentLogger } from '../../src/core/logger';
import { createOsSandbox } from '../../src/core/sandbox/srt';
import type { CommandSandbox } from '../../src/core/shell/commandSandbox';
import { useTempDirs } from '../support/tempDirs';

describe('hooks: workspace hooks in the OS sandbox', function () {
  this.timeout(60_000);
  const suiteTemp = useTempDirs('all');
  let base: string;
  let home: string;
  let workspace: string;
  let sandbox: CommandSandbox;

  before(async function () {
    if (process.platform !== 'linux') this.skip(); // as sandbox.os.test.ts: Linux runs it for real
    base = suiteTemp.make('evergreen-hooks-sandbox-');
    home = path.join(base, 'home');
    workspace = path.join(base, 'ws');
    const storageRoot = path.join(base, 'storage');
    const sessionDir = path.join(storageRoot, 'sessions', 's1');
    for (const dir of [path.join(home, '.ssh'), path.join(home, '.claude'), path.join(workspace, '.claude'), sessionDir]) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    // One command, defined by the repository and by the user: it writes inside, writes outside, reads a key.
    const command = `echo in > "$CLAUDE_PROJECT_DIR/inside-$SCOPE.txt"; echo x > "${home}/outside-$SCOPE.txt"; cat "${home}/.ssh/id_ed25519"; exit 0`;
    const hook = (scope: string) => ({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `SCOPE=${scope}; ${command}` }] }] } });
    writeFileSync(path.join(workspace, '.claude', 'settings.json'), JSON.stringify(hook('workspace')));
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify(hook('user')));
    sandbox = await createOsSandbox({ workspaceRoot: workspace, storageRoot, sessionDir, allowedDomains: [], logger: silentLogger, home });
    assert.equal(sandbox.state.kind, 'on', `the sandbox must start here (npm test installs bubblewrap and socat): ${JSON.stringify(sandbox.state)}`);
  });
  after(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('a consented workspace hook writes in the workspace only and cannot read secrets; the user hook runs as the user', async () => {
    const loaded = await loadHooks({ homeDir: home, workspaceRoot: workspace });
    assert.deepEqual(loaded.problems, []);
    const { runnable } = sortHooksByConsent(loaded.hooks, { consentedKeys: new Set(), workspaceTrusted: true, trustWorkspaceHooks: true });
    assert.deepEqual(
      runnable.map((hook) => hook.origin.scope),
      ['user', 'workspace'],
    );
    const outcome = await runHooks(runnable, { event: 'SessionStart', source: 'startup' }, { session: { sessionId: 's1', transcriptPath: path.join(base, 't.jsonl'), projectDir: workspace }, sandbox });
    const [user, theirs] = outcome.records;
    assert.deepEqual([user!.sandboxed, theirs!.sandboxed], [false, true]);
    assert.ok(existsSync(path.join(workspace, 'inside-workspace.txt')), 'the workspace hook may write in the workspace');
    assert.ok(!existsSync(path.join(home, 'outside-workspace.txt')), 'the workspace hook must not write outside it');
    assert.match(theirs!.stderr, /Read-only file system|Permission denied/);
    assert.doesNotMatch(theirs!.stdout, /PRIVATE KEY/);
    assert.ok(existsSync(path.join(home, 'outside-user.txt')), "the user's hook runs unconfined");
    assert.match(readFileSync(path.join(home, 'outside-user.txt'), 'utf8'), /x/);
    assert.match(user!.stdout, /PRIVATE KEY/);
  });
});
