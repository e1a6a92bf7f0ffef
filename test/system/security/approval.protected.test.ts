// Issue 7 item 2: with writes on auto and `git status` allow-listed, a write to .git/config then an
// allowed `git status` ran a command without a prompt. Files that configure what commands run
// always ask, through the real write tools and the real policy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPolicyApprover, type ApprovalRequest, type ApprovalPolicy } from '../../../src/core/approvals/approval';
import { createToolRegistry } from '../../../src/core/tools/registry';
import type { ToolContext } from '../../../src/core/tools/types';
import { makeTempDirs, type TempDirs } from '../../support/toolFixtures';

describe('security: writes to files that configure commands always ask', () => {
  let dirs: TempDirs;
  const tools = createToolRegistry({ trusted: true });

  beforeEach(() => {
    dirs = makeTempDirs();
    fs.mkdirSync(path.join(dirs.root, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(dirs.root, '.git', 'config'), '[core]\n\tbare = false\n');
  });
  afterEach(() => dirs.cleanup());

  it('a fake repository layout in a folder that is not a repository: the HEAD write asks, so an allowed `git status` runs nothing', async () => {
    // The workspace itself must not be a repository for this attack: drop the fixture's .git.
    fs.rmSync(path.join(dirs.root, '.git'), { recursive: true, force: true });
    const policy: ApprovalPolicy = { writes: 'auto', shell: 'ask', shellAllowList: ['git status'] };
    const recorded: ApprovalRequest[] = [];
    const approver = createPolicyApprover(policy, {
      requestApproval: async (request) => {
        recorded.push(request);
        return { approved: false };
      },
    });
    const controller = new AbortController();
    const ctx: ToolContext = { workspace: dirs.workspace, signal: controller.signal, onProgress: () => undefined, approve: (request) => approver.requestApproval(request, controller.signal) };
    const writes: Record<string, string> = {
      HEAD: 'ref: refs/heads/main\n',
      'objects/.keep': '',
      'refs/.keep': '',
      config: '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch pwned\n',
    };
    for (const [file, content] of Object.entries(writes)) await tools.executeToolCall('write_file', { path: file, content }, ctx);
    assert.deepEqual(
      recorded.map((request) => request.kind === 'write' && request.path),
      ['HEAD'],
    );
    const result = await tools.executeToolCall('run_shell', { command: 'git status' }, ctx);
    assert.match(result.content, /Exit code/, 'git status was allowed to run');
    assert.equal(fs.existsSync(path.join(dirs.root, 'pwned')), false, 'the fake repository config ran a command');
  });
});
