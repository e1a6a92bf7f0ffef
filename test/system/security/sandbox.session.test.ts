// Issue 18: what a session does with each sandbox state, end to end against the fake API. The
// front ends word nothing themselves: the one `sandbox_notice` at start is what the user is told,
// and the approval policy must follow the state the session really got.
import { said } from '../../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../src/core/agent/events';
import { startAgentSession, type AgentConfig } from '../../../src/core/agent/factory';
import { SANDBOX_INSTALL_HINT_DEBIAN, SandboxError, type CommandSandbox } from '../../../src/core/shell/commandSandbox';
import { userText } from '../../../src/core/texts/userText';
import type { OsSandboxOptions } from '../../../src/core/sandbox/srt';
import { FileSessionStore } from '../../../src/core/storage/sessionStore';
import type { ApprovalRequest, Approver } from '../../../src/core/approvals/approval';
import { BACKENDS, say, type FakeBackend } from '../../support/backends';
import { useTempDirs } from '../../support/tempDirs';

type Notice = Extract<AgentEvent, { type: 'sandbox_notice' }>;
type Finished = Extract<AgentEvent, { type: 'tool_call_finished' }>;

const anthropic = BACKENDS.find((backend) => backend.name === 'anthropic');

describe('security: a session and its command sandbox (fake API)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let fake: FakeBackend;
  let base: string;
  let workspace: string;
  let outside: string;

  beforeEach(async () => {
    assert.ok(anthropic);
    fake = await anthropic.start();
    base = temp.make('evergreen-sbx-session-');
    workspace = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    fs.mkdirSync(workspace);
    fs.mkdirSync(outside);
  });
  afterEach(async () => {
    await fake.close();
  });

  /** Starts a session whose interactive side records every request and declines it. */
  async function start(overrides: Partial<AgentConfig>) {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      requestApproval: (request) => {
        asked.push(request);
        return Promise.resolve({ approved: false, reason: 'declined by the test' });
      },
    };
    const events: AgentEvent[] = [];
    const started = await startAgentSession({
      config: fake.config(overrides),
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(base, 'storage')),
      approver,
      onEvent: (event) => events.push(event),
    });
    return {
      started,
      asked,
      notices: () => events.filter((event): event is Notice => event.type === 'sandbox_notice'),
      finished: () => events.filter((event): event is Finished => event.type === 'tool_call_finished'),
    };
  }

  /** One turn in which the model runs `command` with run_shell. */
  async function runShellTurn(session: { send(text: string): Promise<unknown> }, command: string): Promise<void> {
    fake.enqueue(say.toolUse('run_shell', { command }, { id: 'toolu_shell' }), say.text('Done.'));
    await session.send('Run it.');
  }

  const target = () => path.join(outside, 'made-by-command');
  // The allow-list covers mkdir (and shell: ask), so only the sandbox state decides whether it asks.
  const allowMkdir = { writes: 'ask', shell: 'ask', shellAllowList: ['mkdir'] } as const;

  it('sandbox unavailable: one notice naming the install line, and allow-listed and auto commands still ask', async () => {
    const created: OsSandboxOptions[] = [];
    const unavailable: CommandSandbox = {
      state: { kind: 'unavailable', problem: 'bwrap is not installed', installHint: userText('start.sandboxInstallLinux', { command: SANDBOX_INSTALL_HINT_DEBIAN }) },
      wrap: () => Promise.reject(new SandboxError('The sandbox cannot run here')),
    };
    for (const approvalPolicy of [allowMkdir, { writes: 'auto', shell: 'auto', shellAllowList: [] }] as const) {
      created.length = 0;
      const h = await start({
        approvalPolicy: { ...approvalPolicy, shellAllowList: [...approvalPolicy.shellAllowList] },
        sandbox: {
          enabled: true,
          allowedDomains: ['github.com'],
          create: (options) => {
            created.push(options);
            return Promise.resolve(unavailable);
          },
        },
      });
      // The session asked for the sandbox with its own workspace and settings.
      assert.equal(created.length, 1);
      assert.equal(created[0]?.workspaceRoot, workspace);
      assert.deepEqual(created[0]?.allowedDomains, ['github.com']);
      const notices = h.notices();
      assert.equal(notices.length, 1, JSON.stringify(notices));
      assert.equal(notices[0]?.level, 'warning');
      assert.ok(said(notices[0]?.message)?.includes(SANDBOX_INSTALL_HINT_DEBIAN), said(notices[0]?.message));
      assert.match(said(notices[0]?.message) ?? '', /bwrap is not installed/);

      await runShellTurn(h.started.session, `mkdir '${target()}'`);
      assert.equal(h.asked.length, 1, `${approvalPolicy.shell}: the command was not asked about`);
      const asked = h.asked[0];
      assert.ok(asked?.kind === 'shell');
      assert.equal(asked.isolation, 'unavailable');
      assert.equal(fs.existsSync(target()), false);
      assert.match(h.finished()[0]?.content ?? '', /declined/);
      // Still one notice after a turn: it is said at session start only.
      assert.equal(h.notices().length, 1);
    }
  });

  it('sandbox turned off: one warning, commands run unconfined, and the allow-list approves only what reads', async () => {
    const h = await start({
      approvalPolicy: { ...allowMkdir, shellAllowList: ['mkdir', 'ls'] },
      sandbox: {
        enabled: false,
        allowedDomains: [],
        create: () => Promise.reject(new Error('a turned-off sandbox must not be created')),
      },
    });
    const notices = h.notices();
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.equal(notices[0]?.level, 'warning');
    assert.match(said(notices[0]?.message) ?? '', /sandbox is off/);
    // Allow-listed, but it writes and nothing confines it: asked (and declined here).
    await runShellTurn(h.started.session, `mkdir '${target()}'`);
    assert.equal(h.asked.length, 1);
    assert.ok(h.asked[0]?.kind === 'shell' && h.asked[0].isolation === 'disabled');
    assert.equal(fs.existsSync(target()), false);
    // Allow-listed and read-only: no question; unconfined: it lists a folder outside the workspace.
    fs.writeFileSync(path.join(outside, 'seen-outside'), '');
    await runShellTurn(h.started.session, `ls '${outside}'`);
    assert.equal(h.asked.length, 1);
    const listed = h.finished()[1];
    assert.equal(listed?.isError, false, listed?.content);
    assert.match(listed?.content ?? '', /seen-outside/);
  });

  it('the real sandbox (default): no notice, and an allow-listed command runs confined without asking', async function () {
    if (process.platform !== 'linux') this.skip(); // Linux runs bubblewrap for real (see sandbox.os.test.ts).
    const h = await start({ approvalPolicy: { ...allowMkdir, shellAllowList: ['mkdir'] } });
    assert.deepEqual(h.notices(), []);
    await runShellTurn(h.started.session, `mkdir inside-made && mkdir '${target()}'`);
    assert.deepEqual(h.asked, []);
    const result = h.finished()[0];
    assert.ok(result);
    // It ran (the folder inside the workspace exists), and the kernel refused the one outside.
    assert.equal(fs.statSync(path.join(workspace, 'inside-made')).isDirectory(), true);
    assert.equal(result.isError, true);
    assert.match(result.content, /\[sandbox\] The sandbox refused a write/);
    assert.equal(fs.existsSync(target()), false);
  });
});
