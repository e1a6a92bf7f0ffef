// Issue 18 item 3, "protected paths": whether a write always asks was judged by the name the file
// has in the workspace. Git (and the shell, and npm) follow symbolic links and read a Git directory
// by its content, so the same file reached under another name was written on auto: the real folder
// behind a `.git` link, a Git directory named by a `.git` file, the file behind a `package.json`
// link, the dotfiles folder behind `~/.bashrc`. Each case writes through the real write_file tool
// and the real policy (writes on auto); the interactive side declines and records.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPolicyApprover, type ApprovalPolicy, type ApprovalRequest } from '../../../src/core/approvals/approval';
import { createToolRegistry } from '../../../src/core/tools/registry';
import type { ToolContext } from '../../../src/core/tools/types';
import { NodeWorkspace } from '../../../src/core/workspace/workspace';
import { makeTempDirs, type TempDirs } from '../../support/toolFixtures';
import { said } from '../../support/said';

const POLICY: ApprovalPolicy = { writes: 'auto', shell: 'ask', shellAllowList: ['git status'] };
const PAYLOAD = '[core]\n\tfsmonitor = "touch pwned"\n';

/** A Git directory as Git recognises one: HEAD, objects/ and refs/ (and a config). */
function makeGitDir(dir: string): void {
  fs.mkdirSync(path.join(dir, 'objects'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'refs', 'heads'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(dir, 'config'), '[core]\n\tbare = false\n');
}

describe('security: protected files are judged by where a write really lands', () => {
  let dirs: TempDirs;
  let asked: ApprovalRequest[];
  const tools = createToolRegistry({ trusted: true });

  beforeEach(() => {
    dirs = makeTempDirs();
    asked = [];
  });
  afterEach(() => dirs.cleanup());

  function context(workspace: NodeWorkspace = dirs.workspace): ToolContext {
    const approver = createPolicyApprover(POLICY, {
      requestApproval: async (request) => {
        asked.push(request);
        return { approved: false, reason: 'test declines' };
      },
    });
    const controller = new AbortController();
    return { workspace, signal: controller.signal, onProgress: () => undefined, approve: (request) => approver.requestApproval(request, controller.signal) };
  }

  /** Writes `target` through write_file: it must ask, say why, and leave `real` as it was. */
  async function assertAsks(target: string, real: string, workspace?: NodeWorkspace): Promise<void> {
    const before = fs.existsSync(real) ? fs.readFileSync(real) : undefined;
    const result = await tools.executeToolCall('write_file', { path: target, content: PAYLOAD }, context(workspace));
    assert.equal(asked.length, 1, `writing ${target} did not ask: ${result.content}`);
    const request = asked[0];
    assert.ok(request?.kind === 'write', 'a write approval');
    assert.ok(request.protectedReason && said(request.protectedReason).length > 10, `the user is told why (${target})`);
    assert.match(result.content, /declined/);
    assert.deepEqual(fs.existsSync(real) ? fs.readFileSync(real) : undefined, before, `${real} changed`);
  }

  it('a folder link to .git: link/config asks', async () => {
    makeGitDir(path.join(dirs.root, '.git'));
    fs.symlinkSync('.git', path.join(dirs.root, 'link'));
    await assertAsks('link/config', path.join(dirs.root, '.git', 'config'));
  });

  it('a file link to .git/config asks', async () => {
    makeGitDir(path.join(dirs.root, '.git'));
    fs.symlinkSync(path.join('.git', 'config'), path.join(dirs.root, 'cfg'));
    await assertAsks('cfg', path.join(dirs.root, '.git', 'config'));
  });

  it('a symlinked parent folder: hooks/pre-commit through a link to .git/hooks asks', async () => {
    makeGitDir(path.join(dirs.root, '.git'));
    fs.symlinkSync(path.join('.git', 'hooks'), path.join(dirs.root, 'tools'));
    await assertAsks('tools/pre-commit', path.join(dirs.root, '.git', 'hooks', 'pre-commit'));
  });

  it('.git is a link to another folder: writing that folder\'s config under its own name asks', async () => {
    makeGitDir(path.join(dirs.root, 'store'));
    fs.symlinkSync('store', path.join(dirs.root, '.git'));
    await assertAsks('store/config', path.join(dirs.root, 'store', 'config'));
  });

  it('.git is a file naming its Git directory (a worktree, a submodule): that directory\'s hooks ask', async () => {
    makeGitDir(path.join(dirs.root, 'vendor', 'meta'));
    fs.writeFileSync(path.join(dirs.root, '.git'), 'gitdir: vendor/meta\n');
    await assertAsks('vendor/meta/hooks/pre-commit', path.join(dirs.root, 'vendor', 'meta', 'hooks', 'pre-commit'));
  });

  it('package.json is a link: writing the file it leads to asks', async () => {
    fs.mkdirSync(path.join(dirs.root, 'pkg'));
    fs.writeFileSync(path.join(dirs.root, 'pkg', 'manifest.json'), '{"scripts":{}}\n');
    fs.symlinkSync(path.join('pkg', 'manifest.json'), path.join(dirs.root, 'package.json'));
    await assertAsks('pkg/manifest.json', path.join(dirs.root, 'pkg', 'manifest.json'));
  });

  it('a dotfiles workspace: the file ~/.bashrc links to asks', async () => {
    const home = dirs.outside;
    const dotfiles = path.join(home, 'dotfiles');
    fs.mkdirSync(dotfiles);
    fs.writeFileSync(path.join(dotfiles, 'bashrc'), 'alias ll="ls -l"\n');
    fs.symlinkSync(path.join(dotfiles, 'bashrc'), path.join(home, '.bashrc'));
    await assertAsks('bashrc', path.join(dotfiles, 'bashrc'), new NodeWorkspace(dotfiles, [], { home }));
  });

  it('a home folder reached through a link: its protected files ask in a workspace opened on its real path', async () => {
    const realHome = path.join(dirs.outside, 'data-home');
    fs.mkdirSync(realHome);
    const home = path.join(dirs.outside, 'home-link');
    fs.symlinkSync(realHome, home);
    const workspace = new NodeWorkspace(realHome, [], { home });
    await assertAsks('.local/lib/python3.12/site-packages/evil.pth', path.join(realHome, '.local/lib/python3.12/site-packages/evil.pth'), workspace);
    asked = [];
    await assertAsks('.ssh/config', path.join(realHome, '.ssh', 'config'), workspace);
  });

  it('ordinary files next to these stay on auto', async () => {
    makeGitDir(path.join(dirs.root, 'store'));
    fs.symlinkSync('store', path.join(dirs.root, '.git'));
    fs.symlinkSync('docs', path.join(dirs.root, 'manual'));
    fs.mkdirSync(path.join(dirs.root, 'docs'));
    for (const target of ['src/a.ts', 'docs/guide.md', 'manual/intro.md', 'objects.txt']) {
      const result = await tools.executeToolCall('write_file', { path: target, content: 'x\n' }, context());
      assert.match(result.content, /^Created /, `${target}: ${result.content}`);
    }
    assert.equal(asked.length, 0, JSON.stringify(asked.map((request) => request.kind === 'write' && request.path)));
  });
});
