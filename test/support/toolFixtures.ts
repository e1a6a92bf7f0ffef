// Shared fixtures for the tools tests (temp workspaces, a recording ToolContext);
// test/unit/tools.fixtures.test.ts keeps them honest.
import { mkdirSync, symlinkSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { createPolicyApprover, type ApprovalDecision, type ApprovalPolicy, type ApprovalRequest } from '../../src/core/approvals/approval';
import type { ToolContext, ToolEffect, ToolEffectKind, ToolResult } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { tempDirs } from './tempDirs';

export interface TempDirs {
  /** Real path of the workspace root. */
  root: string;
  /** A sibling directory outside the workspace. */
  outside: string;
  /** A read-only root (like the session's persisted tool outputs). */
  readOnly: string;
  workspace: NodeWorkspace;
  cleanup(): void;
}

export function makeTempDirs(): TempDirs {
  const dirs = tempDirs();
  const base = dirs.make('evergreen-tools-');
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const readOnly = path.join(base, 'storage', 'tool-results');
  for (const dir of [root, outside, readOnly]) mkdirSync(dir, { recursive: true });
  return {
    root,
    outside,
    readOnly,
    workspace: new NodeWorkspace(root, [readOnly]),
    cleanup: () => dirs.clean(),
  };
}

export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, content);
  }
}

export interface RecordingContext extends ToolContext {
  approvals: ApprovalRequest[];
  progress: string[];
  controller: AbortController;
}

export function makeContext(
  workspace: NodeWorkspace,
  options: { decide?: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>; requestCompact?: (focus: string | undefined) => Promise<string> } = {},
): RecordingContext {
  const controller = new AbortController();
  const approvals: ApprovalRequest[] = [];
  const progress: string[] = [];
  const ctx: RecordingContext = {
    workspace,
    signal: controller.signal,
    controller,
    approvals,
    progress,
    onProgress: (chunk) => progress.push(chunk),
    approve: async (request) => {
      approvals.push(request);
      return options.decide ? options.decide(request) : { approved: true };
    },
  };
  if (options.requestCompact) ctx.requestCompact = options.requestCompact;
  return ctx;
}

/** The effect of `kind` a result carries (undefined: none); a result with two of one kind fails the test. */
export function effectOf<K extends ToolEffectKind>(result: ToolResult, kind: K): Extract<ToolEffect, { kind: K }> | undefined {
  const found = (result.effects ?? []).filter((effect): effect is Extract<ToolEffect, { kind: K }> => effect.kind === kind);
  if (found.length > 1) throw new Error(`the result carries ${found.length} ${kind} effects`);
  return found[0];
}

/**
 * A context whose approvals go through the real policy (`createPolicyApprover`); `asked` records
 * what reached the interactive side, which declines.
 */
export function policyContext(workspace: NodeWorkspace, policy: ApprovalPolicy): ToolContext & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const approver = createPolicyApprover(policy, {
    requestApproval: async (request) => {
      asked.push(request);
      return { approved: false, reason: 'test declines' };
    },
  });
  const controller = new AbortController();
  return { workspace, asked, signal: controller.signal, onProgress: () => undefined, approve: (request) => approver.requestApproval(request, controller.signal) };
}

/** The search tests' tree: ignored, nested-ignored, binary, hidden and linked-out files, all holding "needle". */
export async function makeSearchTree(dirs: TempDirs): Promise<void> {
  await writeFiles(dirs.root, {
    '.gitignore': 'dist/\n*.log\n/secret.ts\n',
    'src/.gitignore': 'generated/\n!keep.log\n',
    'a.ts': 'export const needle = 1;\n',
    'a/z.ts': 'needle in a dir\n',
    'secret.ts': 'needle secret\n',
    'b.log': 'needle in an ignored log\n',
    'src/keep.log': 'needle kept\n',
    'src/app.ts': '// Needle upper\nconst needle = 2;\n',
    'src/generated/gen.ts': 'needle gen\n',
    'src/sub/deep.ts': 'needle deep\n',
    'dist/out.js': 'needle dist\n',
    'node_modules/pkg/index.js': 'needle nm\n',
    '.git/config': 'needle git\n',
    '.github/workflows/ci.yml': 'needle hidden\n',
    'img.bin': Buffer.concat([Buffer.from('needle binary'), Buffer.from([0, 1, 2, 3])]),
  });
  await writeFiles(dirs.outside, { 'o.ts': 'needle outside\n' });
  symlinkSync(dirs.outside, path.join(dirs.root, 'link-out'));
}
