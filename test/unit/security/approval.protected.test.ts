// Issue 7 item 2: with writes on auto and `git status` allow-listed, a write to .git/config then an
// allowed `git status` ran a command without a prompt. Files that configure what commands run
// always ask, through the real write tools and the real policy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPolicyApprover, type ApprovalRequest, type ApprovalPolicy } from '../../../src/core/approvals/approval';
import { protectedWriteReason } from '../../../src/core/approvals/protectedPaths';
import { createToolRegistry } from '../../../src/core/tools/registry';
import type { ToolContext } from '../../../src/core/tools/types';
import { makeTempDirs, type TempDirs } from '../../support/toolFixtures';
import { said } from '../../support/said';

const POLICY: ApprovalPolicy = { writes: 'auto', shell: 'ask', shellAllowList: ['git status'] };

describe('security: writes to files that configure commands always ask', () => {
  let dirs: TempDirs;
  let asked: ApprovalRequest[];
  const tools = createToolRegistry({ trusted: true });

  beforeEach(() => {
    dirs = makeTempDirs();
    asked = [];
    fs.mkdirSync(path.join(dirs.root, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(dirs.root, '.git', 'config'), '[core]\n\tbare = false\n');
  });
  afterEach(() => dirs.cleanup());

  /** A context whose approvals go through the real policy; the interactive side declines and records. */
  function context(): ToolContext {
    const approver = createPolicyApprover(POLICY, {
      requestApproval: async (request) => {
        asked.push(request);
        return { approved: false, reason: 'test declines' };
      },
    });
    const controller = new AbortController();
    return { workspace: dirs.workspace, signal: controller.signal, onProgress: () => undefined, approve: (request) => approver.requestApproval(request, controller.signal) };
  }

  const protectedTargets = [
    '.git/config',
    '.git/hooks/pre-commit',
    'vendor/lib/.git/config',
    '.GIT/CONFIG',
    '.gitattributes',
    '.vscode/settings.json',
    '.vscode/tasks.json',
    'project.code-workspace',
    'package.json',
    'packages/app/package.json',
    '.npmrc',
    'Makefile',
    'rules.mk',
    '.envrc',
    '.husky/pre-push',
    'pyproject.toml',
    'conftest.py',
    'HEAD',
    'nested/HEAD',
    '.devcontainer.json',
    '.yarn/releases/yarn-4.1.0.cjs',
    '.pnp.cjs',
    '.githooks/pre-commit',
    '.gitconfig',
    'Gemfile',
    'composer.json',
    'build.gradle',
    '.mvn/wrapper/maven-wrapper.properties',
    'lefthook-local.yml',
    'mise.toml',
    '.env.local',
  ];

  for (const target of protectedTargets) {
    it(`write_file to ${target} asks even with writes on auto, and writes nothing when declined`, async () => {
      const before = fs.existsSync(path.join(dirs.root, target)) ? fs.readFileSync(path.join(dirs.root, target)) : undefined;
      const result = await tools.executeToolCall('write_file', { path: target, content: '[core]\n\tfsmonitor = "touch pwned"\n' }, context());
      assert.equal(asked.length, 1, `no approval was asked for ${target}`);
      const request = asked[0];
      assert.ok(request && request.kind === 'write');
      assert.ok(request.protectedReason && said(request.protectedReason).length > 10, 'the user is told why it asks');
      assert.match(result.content, /declined/);
      const after = fs.existsSync(path.join(dirs.root, target)) ? fs.readFileSync(path.join(dirs.root, target)) : undefined;
      assert.deepEqual(after, before);
    });
  }

  it('edit_file of .git/config asks too', async () => {
    const result = await tools.executeToolCall('edit_file', { path: '.git/config', old_string: 'bare = false', new_string: 'fsmonitor = "touch pwned"' }, context());
    assert.equal(asked.length, 1);
    assert.match(result.content, /declined/);
    assert.match(fs.readFileSync(path.join(dirs.root, '.git', 'config'), 'utf8'), /bare = false/);
  });

  it('a symlink inside the workspace pointing at .git/config is judged by where it leads', async () => {
    fs.symlinkSync(path.join('.git', 'config'), path.join(dirs.root, 'innocent.txt'));
    await tools.executeToolCall('write_file', { path: 'innocent.txt', content: '[alias]\n\tst = !touch pwned\n' }, context());
    assert.equal(asked.length, 1);
    assert.match(fs.readFileSync(path.join(dirs.root, '.git', 'config'), 'utf8'), /bare = false/);
  });

  it('ordinary files stay on auto', async () => {
    for (const target of ['src/a.ts', 'gitconfig.txt', '.github/ISSUE_TEMPLATE/bug.md', 'docs/vscode.md', 'package.json.bak', 'my.git/notes.txt']) {
      const result = await tools.executeToolCall('write_file', { path: target, content: 'x\n' }, context());
      assert.match(result.content, /^Created /, `${target}: ${result.content}`);
    }
    assert.equal(asked.length, 0, JSON.stringify(asked.map((request) => request.kind === 'write' && request.path)));
  });

  it('protectedWriteReason accepts either separator and ignores "." segments', () => {
    assert.ok(protectedWriteReason('./.git\\hooks\\post-checkout'));
    assert.equal(protectedWriteReason('src/git.ts'), undefined);
    assert.equal(protectedWriteReason(''), undefined);
  });
});
