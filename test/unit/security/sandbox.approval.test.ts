// Issue 18: the shell allow-list and `auto` judge a command's text, so they may approve it only
// while the kernel holds the boundary (or the user turned the sandbox off knowingly). A command
// that would run unconfined because the sandbox cannot start, or because the model asked to leave
// it, always reaches a person; and a sandbox that fails to wrap a command never lets it run bare.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { SANDBOX_INSTALL_HINT_DEBIAN, SandboxError, type CommandSandbox, type SandboxState } from '../../../src/core/shell/commandSandbox';
import { userText } from '../../../src/core/texts/userText';
import { verbatim } from '../../../src/core/texts/userText';
import { createPolicyApprover, decide, type ApprovalPolicy, type ApprovalRequest, type Approver, type ShellIsolation } from '../../../src/core/approvals/approval';
import { createRunShellTool, isolationFor } from '../../../src/core/tools/runShell';
import { makeContext, makeTempDirs, type TempDirs } from '../../support/toolFixtures';

const COMMAND = 'git status';
const AUTO: ApprovalPolicy = { writes: 'ask', shell: 'auto', shellAllowList: [] };
const ALLOW_LIST: ApprovalPolicy = { writes: 'ask', shell: 'ask', shellAllowList: ['git status'] };
const shellRequest = (isolation: ShellIsolation): ApprovalRequest => ({
  kind: 'shell',
  command: COMMAND,
  isolation,
  ...(isolation === 'outside' ? { outsideReason: 'needs the network' } : {}),
});

/** An interactive approver that records what reached it and answers `answer`. */
function recordingApprover(answer: boolean): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    requestApproval: (request) => {
      asked.push(request);
      return Promise.resolve(answer ? { approved: true } : { approved: false, reason: 'declined in the test' });
    },
  };
}

/** A sandbox in a fixed state whose wrap() fails the way createOsSandbox's does when it cannot prepare a command. */
function stubSandbox(state: SandboxState, wrapError = 'The sandbox could not prepare the command: bwrap vanished'): CommandSandbox & { wrapped: string[] } {
  const wrapped: string[] = [];
  return {
    state,
    wrapped,
    wrap(command) {
      wrapped.push(command);
      return Promise.reject(new SandboxError(wrapError));
    },
  };
}

describe('security: approvals and the command sandbox', () => {
  describe('decide / createPolicyApprover', () => {
    for (const [label, policy] of [
      ['shell: auto', AUTO],
      ['an allow-list match', ALLOW_LIST],
    ] as const) {
      it(`${label}: approves without asking in the sandbox and with it turned off`, async () => {
        for (const isolation of ['sandbox', 'disabled'] as const) {
          assert.equal(decide(policy, shellRequest(isolation)), 'auto', isolation);
          const interactive = recordingApprover(false);
          const decision = await createPolicyApprover(policy, interactive).requestApproval(shellRequest(isolation), new AbortController().signal);
          assert.deepEqual(decision, { approved: true }, isolation);
          assert.equal(interactive.asked.length, 0, `${isolation}: the interactive approver was asked`);
        }
      });

      it(`${label}: always asks while the sandbox is unavailable and for a run outside it`, async () => {
        for (const isolation of ['unavailable', 'outside'] as const) {
          assert.equal(decide(policy, shellRequest(isolation)), 'ask', isolation);
          const interactive = recordingApprover(false);
          const decision = await createPolicyApprover(policy, interactive).requestApproval(shellRequest(isolation), new AbortController().signal);
          // The person's answer is the answer, and they saw the request as it was (reason included).
          assert.equal(decision.approved, false, isolation);
          assert.deepEqual(interactive.asked, [shellRequest(isolation)], isolation);
        }
      });
    }

    it('what a sandboxed command wrote that would arm a program outside always reaches a person, whatever the settings', async () => {
      const held: ApprovalRequest = { kind: 'sandbox_changes', command: 'git init x', changes: [{ path: 'x/.git/config', reason: userText('approval.heldGitConfig', { where: 'x/.git' }), detail: 'core.fsmonitor = touch /tmp/p' }] };
      const everythingAuto: ApprovalPolicy = { writes: 'auto', shell: 'auto', shellAllowList: ['git'], mcp: 'auto', mcpAllowList: ['mcp__x__*'] };
      assert.equal(decide(everythingAuto, held), 'ask');
      const person = recordingApprover(false);
      const decision = await createPolicyApprover(everythingAuto, person).requestApproval(held, new AbortController().signal);
      assert.deepEqual(person.asked, [held]);
      assert.equal(decision.approved, false);
    });

    it('a command the allow-list does not cover still asks inside the sandbox', () => {
      assert.equal(decide(ALLOW_LIST, { kind: 'shell', command: 'rm -rf build', isolation: 'sandbox' }), 'ask');
    });
  });

  describe('isolationFor', () => {
    it('maps the sandbox state and the outside reason to how the command runs', () => {
      const on = stubSandbox({ kind: 'on', allowedDomains: [] });
      const unavailable = stubSandbox({ kind: 'unavailable', problem: 'bwrap missing', installHint: userText('start.sandboxInstallLinux', { command: SANDBOX_INSTALL_HINT_DEBIAN }) });
      const disabled = stubSandbox({ kind: 'disabled' });
      assert.equal(isolationFor(on, undefined), 'sandbox');
      assert.equal(isolationFor(on, 'needs docker'), 'outside');
      // No working sandbox to leave: the reason changes nothing, and nothing is confined.
      assert.equal(isolationFor(unavailable, undefined), 'unavailable');
      assert.equal(isolationFor(unavailable, 'needs docker'), 'unavailable');
      assert.equal(isolationFor(disabled, 'needs docker'), 'disabled');
      assert.equal(isolationFor(undefined, undefined), 'disabled');
    });
  });

  describe('run_shell', () => {
    let dirs: TempDirs;
    beforeEach(() => (dirs = makeTempDirs()));
    afterEach(() => dirs.cleanup());

    const markerCommand = () => `touch '${path.join(dirs.outside, 'ran-unconfined')}'`;

    it('does not run a command unconfined when the sandbox cannot wrap it, and says why', async () => {
      const sandbox = stubSandbox({ kind: 'on', allowedDomains: [] });
      const tool = createRunShellTool({ sandbox });
      const ctx = makeContext(dirs.workspace);
      const result = await tool.run(tool.parse({ command: markerCommand() }), ctx);
      assert.deepEqual(sandbox.wrapped, [markerCommand()], 'the command was not handed to the sandbox');
      assert.equal(existsSync(path.join(dirs.outside, 'ran-unconfined')), false, 'the command ran without the sandbox');
      assert.equal(result.isError, true);
      assert.match(result.content, /^The command was not run: The sandbox could not prepare the command: bwrap vanished/);
      // It was approved as a sandboxed run; that approval does not cover an unconfined one.
      assert.deepEqual(
        ctx.approvals.map((request) => request.kind === 'shell' && request.isolation),
        ['sandbox'],
      );
    });

    it('asks with isolation "unavailable" even under shell: auto, and runs nothing when declined', async () => {
      const sandbox = stubSandbox({ kind: 'unavailable', problem: 'bwrap missing', installHint: userText('start.sandboxInstallLinux', { command: SANDBOX_INSTALL_HINT_DEBIAN }) });
      const tool = createRunShellTool({ sandbox });
      const interactive = recordingApprover(false);
      const approver = createPolicyApprover(AUTO, interactive);
      const ctx = makeContext(dirs.workspace, { decide: (request) => approver.requestApproval(request, new AbortController().signal) });
      const result = await tool.run(tool.parse({ command: markerCommand() }), ctx);
      assert.equal(interactive.asked.length, 1);
      const asked = interactive.asked[0];
      assert.ok(asked?.kind === 'shell');
      assert.equal(asked.isolation, 'unavailable');
      assert.match(result.content, /The user declined to run the command; it was not executed/);
      assert.equal(existsSync(path.join(dirs.outside, 'ran-unconfined')), false);
      assert.deepEqual(sandbox.wrapped, []);
    });

    it('asks for a run outside the sandbox with the model\'s reason, and a declined one says so', async () => {
      const sandbox = stubSandbox({ kind: 'on', allowedDomains: [] });
      const tool = createRunShellTool({ sandbox });
      const interactive = recordingApprover(false);
      const approver = createPolicyApprover(AUTO, interactive);
      const ctx = makeContext(dirs.workspace, { decide: (request) => approver.requestApproval(request, new AbortController().signal) });
      const result = await tool.run(tool.parse({ command: markerCommand(), outside_sandbox_reason: '  needs the docker socket ' }), ctx);
      assert.deepEqual(interactive.asked, [{ kind: 'shell', command: markerCommand(), isolation: 'outside', outsideReason: 'needs the docker socket' }]);
      assert.match(result.content, /^The user declined to run the command outside the sandbox; it was not executed\./);
      assert.equal(existsSync(path.join(dirs.outside, 'ran-unconfined')), false);
      assert.deepEqual(sandbox.wrapped, []);
    });

    it('offers outside_sandbox_reason only while the sandbox is on', () => {
      const properties = (sandbox: CommandSandbox) => Object.keys((createRunShellTool({ sandbox }).inputSchema as { properties: Record<string, unknown> }).properties);
      assert.ok(properties(stubSandbox({ kind: 'on', allowedDomains: [] })).includes('outside_sandbox_reason'));
      assert.ok(!properties(stubSandbox({ kind: 'disabled' })).includes('outside_sandbox_reason'));
      assert.ok(!properties(stubSandbox({ kind: 'unavailable', problem: 'x', installHint: verbatim('y') })).includes('outside_sandbox_reason'));
    });
  });
});
