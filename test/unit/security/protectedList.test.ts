// Issue 18 item 3, "the protected list": files that run code were missing from it — user Git and
// SSH config, more shell start-up files, VS Code's user and machine settings, Python .pth files,
// CI workflows, tool configs written in code — and Evergreen's own session storage could be
// written on auto when it lies inside the workspace. Each write goes through the real write_file
// tool and the real policy (writes on auto); the interactive side declines and records. The list
// is also exported as data for a shell sandbox (protectedLocations).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPolicyApprover, type ApprovalPolicy, type ApprovalRequest } from '../../../src/core/approvals/approval';
import { PROTECTED_WHY, protectedLocations, protectedWriteReasonAt } from '../../../src/core/approvals/protectedPaths';
import { createToolRegistry } from '../../../src/core/tools/registry';
import type { ToolContext } from '../../../src/core/tools/types';
import { NodeWorkspace } from '../../../src/core/workspace/workspace';
import { makeTempDirs, type TempDirs } from '../../support/toolFixtures';
import { said } from '../../support/said';

const POLICY: ApprovalPolicy = { writes: 'auto', shell: 'ask', shellAllowList: [] };

/** Under the home folder (a workspace opened on ~ reaches them all). */
const HOME_TARGETS = [
  '.ssh/config',
  '.ssh/authorized_keys',
  '.config/git/config',
  '.gitconfig',
  '.zlogin',
  '.zlogout',
  '.bash_aliases',
  '.config/fish/config.fish',
  '.config/Code/User/settings.json',
  '.config/Code/User/tasks.json',
  '.config/Code/User/profiles/1a2b/settings.json',
  '.vscode-server/data/Machine/settings.json',
  '.vscode-server/data/User/mcp.json',
  'Library/Application Support/Code/User/settings.json',
  '.local/share/code-server/User/settings.json',
  '.vscode/extensions/evil.ext-1.0.0/extension.js',
  '.local/lib/python3.12/site-packages/evil.pth',
];

/** Anywhere in a project. */
const WORKSPACE_TARGETS = [
  '.github/workflows/ci.yml',
  'packages/app/.github/workflows/release.yaml',
  '.husky/pre-commit',
  '.pre-commit-config.yaml',
  'eslint.config.js',
  'eslint.config.mjs',
  'packages/web/vite.config.ts',
  'jest.config.cjs',
  '.eslintrc.cjs',
  '.prettierrc.mjs',
  '.mocharc.yml',
  'karma.conf.js',
  'gulpfile.js',
  '.venv/lib/python3.12/site-packages/evil.pth',
  'sitecustomize.py',
  '.zlogin',
  '.mcp.json',
];

describe('security: the protected list covers the files that run code, and Evergreen\'s storage', () => {
  let dirs: TempDirs;
  let asked: ApprovalRequest[];
  const tools = createToolRegistry({ trusted: true });

  beforeEach(() => {
    dirs = makeTempDirs();
    asked = [];
  });
  afterEach(() => dirs.cleanup());

  function context(workspace: NodeWorkspace): ToolContext {
    const approver = createPolicyApprover(POLICY, {
      requestApproval: async (request) => {
        asked.push(request);
        return { approved: false, reason: 'test declines' };
      },
    });
    const controller = new AbortController();
    return { workspace, signal: controller.signal, onProgress: () => undefined, approve: (request) => approver.requestApproval(request, controller.signal) };
  }

  async function assertAsks(workspace: NodeWorkspace, target: string): Promise<void> {
    asked = [];
    const result = await tools.executeToolCall('write_file', { path: target, content: 'import os; os.system("touch pwned")\n' }, context(workspace));
    assert.equal(asked.length, 1, `writing ${target} did not ask: ${result.content}`);
    const request = asked[0];
    assert.ok(request?.kind === 'write');
    assert.ok(request.protectedReason && said(request.protectedReason).length > 10, `the user is told why (${target})`);
    assert.match(result.content, /declined/);
    assert.equal(fs.existsSync(path.join(workspace.root, target)), false, `${target} was written`);
  }

  it('a workspace opened on the home folder: user Git, SSH, shell, VS Code and Python start-up files ask', async () => {
    const home = dirs.root;
    const workspace = new NodeWorkspace(home, [], { home });
    for (const target of HOME_TARGETS) await assertAsks(workspace, target);
  });

  it('project files that run code ask: CI workflows, hooks, tool configs written in code, .pth files', async () => {
    for (const target of WORKSPACE_TARGETS) await assertAsks(dirs.workspace, target);
  });

  it("Evergreen's session storage inside the workspace: a write there always asks, the session's own folder stays readable", async () => {
    const storage = path.join(dirs.root, '.sessions');
    const sessionDir = path.join(storage, 'sessions', '20260101-000000-abcdef');
    fs.mkdirSync(sessionDir, { recursive: true });
    fs.writeFileSync(path.join(sessionDir, 'transcript.jsonl'), '{"type":"message"}\n');
    const workspace = new NodeWorkspace(dirs.root, [sessionDir], { sessionStorage: storage });
    await assertAsks(workspace, '.sessions/sessions/20260101-000000-abcdef/notes.md');
    await assertAsks(workspace, '.sessions/sessions/20260101-000000-other/transcript.jsonl');
    const read = await tools.executeToolCall('read_file', { path: path.join(sessionDir, 'transcript.jsonl') }, context(workspace));
    assert.equal(read.isError, undefined, read.content);
    assert.match(read.content, /"type":"message"/);
  });

  it("Evergreen's session storage outside the workspace: the model can read its session but never write it", async () => {
    const storage = path.dirname(dirs.readOnly);
    const workspace = new NodeWorkspace(dirs.root, [dirs.readOnly], { sessionStorage: storage });
    fs.writeFileSync(path.join(dirs.readOnly, 'out.txt'), 'saved output\n');
    const read = await tools.executeToolCall('read_file', { path: path.join(dirs.readOnly, 'out.txt') }, context(workspace));
    assert.match(read.content, /saved output/);
    const write = await tools.executeToolCall('write_file', { path: path.join(dirs.readOnly, 'out.txt'), content: 'x' }, context(workspace));
    assert.equal(write.isError, true);
    assert.match(write.content, /read-only location/);
    assert.equal(fs.readFileSync(path.join(dirs.readOnly, 'out.txt'), 'utf8'), 'saved output\n');
  });

  it('ordinary files with similar names stay on auto', async () => {
    for (const target of ['src/config.ts', 'config.js', 'docs/eslint.md', 'user/settings.json', 'src/workflows/ci.yml', 'site-packages.md', 'lib/husky.ts']) {
      const result = await tools.executeToolCall('write_file', { path: target, content: 'x\n' }, context(dirs.workspace));
      assert.match(result.content, /^Created /, `${target}: ${result.content}`);
    }
    assert.equal(asked.length, 0, JSON.stringify(asked.map((request) => request.kind === 'write' && request.path)));
  });

  it('protectedLocations gives a sandbox the same list as data: absolute paths and patterns', async () => {
    const scope = { workspaceRoot: dirs.root, home: dirs.outside, sessionStorage: path.dirname(dirs.readOnly) };
    const locations = protectedLocations(scope);
    const paths = locations.flatMap((location) => (location.kind === 'path' ? [location.path] : []));
    for (const expected of ['.ssh', '.config/git', '.gitconfig', '.zlogin', '.bashrc', '.config/Code/User', '.vscode-server/data/Machine']) {
      assert.ok(paths.includes(path.join(dirs.outside, expected)), `${expected} is not among the paths`);
    }
    assert.ok(paths.includes(path.dirname(dirs.readOnly)), 'the session storage is among the paths');
    const patterns = locations.flatMap((location) => (location.kind === 'pattern' ? [`${location.root}|${location.pattern}`] : []));
    for (const expected of ['**/.github/workflows', '.husky', '.pre-commit-config.yaml', '*.config.js', '**/site-packages/*.pth', '.git', '.vscode']) {
      assert.ok(patterns.includes(`${dirs.root}|${expected}`), `${expected} is not among the workspace patterns`);
    }
    assert.ok(patterns.includes(`${dirs.outside}|/.local/lib/python*/site-packages/*.pth`));
    assert.ok(locations.every((location) => PROTECTED_WHY[location.why].length > 10));
    // What the write tools judge agrees with the data, for a path of each kind.
    assert.ok(await protectedWriteReasonAt(path.join(dirs.outside, '.ssh', 'config'), scope));
    assert.ok(await protectedWriteReasonAt(path.join(dirs.root, '.github', 'workflows', 'ci.yml'), scope));
    assert.ok(await protectedWriteReasonAt(path.join(path.dirname(dirs.readOnly), 'sessions', 'x', 'meta.json'), scope));
    assert.equal(await protectedWriteReasonAt(path.join(dirs.root, 'src', 'a.ts'), scope), undefined);
  });
});
