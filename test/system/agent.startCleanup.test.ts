/**
 * Issue 27 item 4: a session's start gives back everything it acquired when a later step fails
 * (the MCP servers it started, the sandbox's private folder, the transcript's lock, a new
 * session's folder), newest first, and a started session's close() gives back the same but keeps
 * the transcript. The steps are START_STEPS: every one gets a failure injected, and a step added
 * there without a row in ACQUIRES fails the first test.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { START_STEPS, startAgentSession, type StartStep, type StartedSession } from '../../src/core/agent/factory';
import { parseMcpConfigValue, type McpServerConfig } from '../../src/core/mcp/config';
import { parseHookSettingsValue, type ConfiguredHook } from '../../src/core/hooks/config';
import type { CommandSandbox } from '../../src/core/shell/commandSandbox';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { BACKENDS, type FakeBackend } from '../support/backends';
import { processesWhoseCommandLineIncludes } from '../support/processMarkers';
import { useTempDirs } from '../support/tempDirs';

type Resource = 'session folder' | 'transcript lock' | 'sandbox folder' | 'MCP server';

/** What each step acquires that a failure after it must give back (a step that acquires nothing still has its row). */
const ACQUIRES: Record<StartStep, readonly Resource[]> = {
  model: [],
  transcript: ['session folder', 'transcript lock'],
  modes: [],
  sandbox: ['sandbox folder'],
  // Its SessionEnd runs on close only for a session whose SessionStart ran (the last step).
  hooks: [],
  checkpoints: [],
  mcp: ['MCP server'],
  tools: [],
  prompt: [],
  session: [],
  notices: [],
};

/** What the steps before `step` acquired: what a failure at `step` must give back. */
function acquiredBefore(step: StartStep): Set<Resource> {
  return new Set(START_STEPS.slice(0, START_STEPS.indexOf(step)).flatMap((earlier) => ACQUIRES[earlier]));
}

const MANY_TOOLS = path.resolve(__dirname, '../fixtures/mcp/manyTools.mjs');
const anthropic = BACKENDS.find((backend) => backend.name === 'anthropic');

describe('a session start gives back what it acquired (issue 27)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let fake: FakeBackend;
  let base: string;
  let workspace: string;
  let store: FileSessionStore;
  let marker: string;
  let sandboxes: { created: number; disposed: number; lockHeldAtDispose: boolean[] };
  /** Every session a test started, closed after it even when an assertion failed first (close is idempotent). */
  const opened: StartedSession[] = [];

  beforeEach(async () => {
    assert.ok(anthropic);
    fake = await anthropic.start();
    base = temp.make('evergreen-start-cleanup-');
    workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    store = new FileSessionStore(path.join(base, 'storage'));
    marker = `evergreen-start-cleanup-${process.pid}-${Math.random().toString(36).slice(2)}`;
    sandboxes = { created: 0, disposed: 0, lockHeldAtDispose: [] };
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((started) => started.close()));
    await fake.close();
  });

  /** A small real MCP server whose command line carries this test's marker, so its process can be found. */
  function mcpServer(): McpServerConfig {
    const parsed = parseMcpConfigValue({ tools: { command: process.execPath, args: [MANY_TOOLS, marker], env: { MANY_TOOLS: '2' } } }, { scope: 'user', source: 'test' }, { env: {} }, { bare: true });
    assert.deepEqual(parsed.problems, []);
    return parsed.servers[0]!;
  }

  /** A sandbox that holds a per-session resource and says when it is given back (and whether the lock was still held then). */
  const sandbox = {
    enabled: true,
    allowedDomains: [],
    create: async (options: { sessionDir: string }): Promise<CommandSandbox> => {
      sandboxes.created++;
      return {
        state: { kind: 'on', allowedDomains: [] },
        wrap: () => Promise.reject(new Error('no commands in this test')),
        dispose: () => {
          sandboxes.disposed++;
          sandboxes.lockHeldAtDispose.push(fs.existsSync(path.join(options.sessionDir, 'owner.lock')));
        },
      };
    },
  };

  async function start(options: { resumeId?: string; onStep?: (step: StartStep) => void } = {}): Promise<StartedSession> {
    const started = await startAgentSession({
      config: fake.config({ sandbox, mcp: { servers: [mcpServer()], problems: [], notices: [] }, hooks: { hooks: sessionEndHook(), notices: [] } }),
      workspaceRoot: workspace,
      store,
      approver: { requestApproval: () => Promise.resolve({ approved: false }) },
      onEvent: () => undefined,
      ...options,
    });
    opened.push(started);
    return started;
  }

  /** A SessionEnd hook that notes whether the session's transcript was still locked when it ran. */
  function sessionEndHook(): ConfiguredHook[] {
    const note = `${JSON.stringify(process.execPath)} -e 'const i=JSON.parse(require("fs").readFileSync(0,"utf8"));const p=require("path");require("fs").appendFileSync(${JSON.stringify(path.join(base, 'ended.log'))},String(require("fs").existsSync(p.join(p.dirname(i.transcript_path),"owner.lock")))+"\\n")'`;
    const parsed = parseHookSettingsValue({ SessionEnd: [{ hooks: [{ type: 'command', command: note }] }] }, { scope: 'user', source: 'test', label: 'test' }, { bare: true });
    assert.deepEqual(parsed.problems, []);
    return parsed.hooks;
  }
  const sessionEnds = () => (fs.existsSync(path.join(base, 'ended.log')) ? fs.readFileSync(path.join(base, 'ended.log'), 'utf8').split('\n').filter(Boolean) : []);

  const sessionFolders = () => fs.readdirSync(path.join(base, 'storage', 'sessions')).sort();
  const mcpProcesses = () => processesWhoseCommandLineIncludes(marker);

  it('goes through START_STEPS in order, and every step has a row in ACQUIRES', async () => {
    assert.deepEqual(Object.keys(ACQUIRES), [...START_STEPS], 'a new step needs a row in ACQUIRES (and a check below for what it acquires)');
    const seen: StartStep[] = [];
    const started = await start({ onStep: (step) => seen.push(step) });
    assert.deepEqual(seen, [...START_STEPS]);
    await started.close();
  });

  for (const step of START_STEPS) {
    it(`a new session whose start fails at "${step}" leaves nothing behind`, async () => {
      const injected = new Error(`injected at ${step}`);
      await assert.rejects(
        start({
          onStep: (current) => {
            if (current === step) throw injected;
          },
        }),
        (error) => error === injected,
      );
      const acquired = acquiredBefore(step);
      assert.deepEqual(fs.existsSync(path.join(base, 'storage', 'sessions')) ? sessionFolders() : [], [], 'no session folder (and so no lock) is left');
      assert.deepEqual(await store.list(), []);
      assert.equal(sandboxes.created, acquired.has('sandbox folder') ? 1 : 0, 'the sandbox was made exactly when the step is after it');
      assert.equal(sandboxes.disposed, sandboxes.created, 'a sandbox made is given back');
      // Newest first: the sandbox goes back while the session it was made for is still locked.
      assert.deepEqual(sandboxes.lockHeldAtDispose, acquired.has('sandbox folder') ? [true] : []);
      assert.deepEqual(await mcpProcesses(), [], 'no MCP server runs on');
      assert.deepEqual(sessionEnds(), [], 'a session that never began runs no SessionEnd hook');
    });
  }

  for (const step of START_STEPS.filter((candidate) => acquiredBefore(candidate).has('transcript lock'))) {
    it(`a resumed session whose start fails at "${step}" keeps its transcript and releases its lock`, async () => {
      const first = await start();
      const id = first.handle.id;
      await first.close();
      const transcript = fs.readFileSync(first.handle.transcriptPath, 'utf8');
      await assert.rejects(
        start({
          resumeId: id,
          onStep: (current) => {
            if (current === step) throw new Error(`injected at ${step}`);
          },
        }),
        new RegExp(`injected at ${step}`),
      );
      assert.deepEqual(sessionFolders(), [id], 'the resumed session stays');
      assert.equal(fs.readFileSync(first.handle.transcriptPath, 'utf8'), transcript, 'its transcript is unchanged');
      assert.equal(fs.existsSync(path.join(store.sessionDir(id), 'owner.lock')), false, 'its lock is released');
      assert.equal(sandboxes.disposed, sandboxes.created);
      assert.deepEqual(await mcpProcesses(), []);
      // And nothing blocks the next resume.
      const again = await start({ resumeId: id });
      await again.close();
    });
  }

  it('a sandbox that cannot be made fails the start (its own error) and the new session folder goes too', async () => {
    const broken = { ...sandbox, create: () => Promise.reject(new Error('no sandbox today')) };
    await assert.rejects(
      startAgentSession({
        config: fake.config({ sandbox: broken }),
        workspaceRoot: workspace,
        store,
        approver: { requestApproval: () => Promise.resolve({ approved: false }) },
        onEvent: () => undefined,
      }),
      /no sandbox today/,
    );
    assert.deepEqual(sessionFolders(), []);
  });

  it('close() stops the MCP servers, gives the sandbox back, releases the lock, keeps the transcript; twice is once', async () => {
    const started = await start();
    const lock = path.join(started.handle.dir, 'owner.lock');
    assert.ok(fs.existsSync(lock));
    // Its process tree (the server, and the namespace wrapper where one is used) carries the marker.
    assert.ok((await mcpProcesses()).length > 0, 'the MCP server runs while the session is open');
    await Promise.all([started.close(), started.close()]);
    assert.deepEqual(await mcpProcesses(), []);
    assert.deepEqual(sandboxes, { created: 1, disposed: 1, lockHeldAtDispose: [true] });
    assert.deepEqual(sessionEnds(), ['true'], 'SessionEnd ran once, while the transcript was still locked');
    assert.equal(fs.existsSync(lock), false);
    assert.deepEqual(sessionFolders(), [started.handle.id], 'a closed session can be resumed');
  });
});
