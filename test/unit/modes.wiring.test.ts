/**
 * Modes wired into a session (issue 28), in memory: the session's mode (agent/modes.ts) with one tool
 * list for every mode, its gate and the limits the tools it still offers run under (run_shell's
 * read-only workspace, explore subagents), the block a switch puts at the start of the next turn
 * (and nothing when the model already knows the mode), plan decisions, the fold and the chat's
 * replay (a resume continues in the mode and shows the plan card and its decision), the task list a
 * built plan leaves in the history, and the tools that honour the limits.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/core/agent/events';
import { foldTranscript } from '../../src/core/agent/fold';
import { PlanDecisionError, SessionModes, UnknownModeError, type SessionModesOptions } from '../../src/core/agent/modes';
import { eventsFromHistory } from '../../src/core/agent/replay';
import { opensTurn } from '../../src/core/todos/planDecision';
import type { MessageParam } from '../../src/core/model/messages';
import { BUILT_IN_MODES, MODE_SWITCH_MARK, type ModeDefinition } from '../../src/core/modes/modes';
import type { CommandSandbox, WrapOptions } from '../../src/core/shell/commandSandbox';
import { buildSandboxPolicy } from '../../src/core/sandbox/policy';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { parseTranscriptEntry } from '../../src/core/storage/transcript';
import { latestTodos } from '../../src/core/todos/taskList';
import { createToolRegistry } from '../../src/core/tools/registry';
import { createRunShellTool } from '../../src/core/tools/runShell';
import { createTaskTool } from '../../src/core/tools/task';
import type { ToolDefinition } from '../../src/core/tools/types';
import { makeContext, makeTempDirs } from '../support/toolFixtures';
import { verbatim } from '../../src/core/texts/userText';
import { errorText } from '../../src/extension/errorHints';
import { said } from '../support/said';

const PLAN_MARKDOWN = '# Rate limits\n\nWhy: the API has none.\n\n## Steps\n1. Add the limiter\n2. Test it\n';

/** An MCP server's tool as mcp/ builds it (only what the mode rules read). */
function mcpTool(name: string, server: string): ToolDefinition<unknown> {
  return { name, description: name, kind: 'meta', mcpServer: server, mcpTool: name.split('__').at(-1)!, context: { kind: 'other', external: true }, inputSchema: { type: 'object', properties: {} }, parse: (input) => input, headline: () => verbatim(name), run: async () => ({ content: 'ran' }) };
}

/** mcp_call as the deferred tools build it: its parse resolves the named tool. */
function mcpCall(tools: readonly ToolDefinition<unknown>[]): ToolDefinition<unknown> {
  return {
    name: 'mcp_call',
    description: 'calls',
    kind: 'meta',
    context: { kind: 'other', external: true },
    inputSchema: { type: 'object', properties: {} },
    parse(input) {
      const tool = tools.find((candidate) => candidate.name === (input as { tool?: unknown }).tool);
      if (!tool) throw new Error('no such tool');
      return { tool, arguments: {} };
    },
    headline: () => verbatim('call'),
    run: async () => ({ content: 'called' }),
  };
}

const mode = (name: string): ModeDefinition => BUILT_IN_MODES.find((candidate) => candidate.name === name)!;

function modesRig(options: Partial<SessionModesOptions> & { sandbox?: boolean; deferred?: boolean } = {}) {
  const entries: TranscriptEntry[] = [];
  const events: AgentEvent[] = [];
  const github = mcpTool('mcp__github__get_issue', 'github');
  const jira = mcpTool('mcp__jira__create_issue', 'jira');
  const external = options.deferred ? [mcpCall([github, jira])] : [github, jira];
  const tools = createToolRegistry({ trusted: true, task: true, exitPlanMode: true, externalTools: external, memory: { folder: '/nonexistent/memory' } });
  const modes = new SessionModes({
    modes: BUILT_IN_MODES,
    current: mode('agent'),
    told: 'agent',
    tools,
    toolOptions: { sandboxAvailable: options.sandbox ?? true, planMcpTools: ['mcp__github__*'] },
    record: (entry) => entries.push(entry),
    emit: (event) => events.push(event),
    now: () => 0,
    ...options,
  });
  return { modes, entries, events, tools };
}

const texts = (blocks: readonly { type: string; text?: string }[]) => blocks.map((block) => block.text ?? '');

/** A history that ends with a proposed plan (the turn ended there). */
function proposedHistory(): MessageParam[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'Plan the rate limits' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_plan', name: 'exit_plan_mode', input: { plan: PLAN_MARKDOWN } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_plan', content: 'The plan was shown to the user.' }] },
  ];
}

describe('the session mode: one tool list, a gate per call', () => {
  it('plan mode refuses writes and says why; agent mode refuses exit_plan_mode; the list sent never changes', () => {
    const { modes, tools } = modesRig();
    const before = JSON.stringify(tools.list());
    assert.equal(modes.refusal({ name: 'write_file', input: {} }), undefined);
    assert.match(modes.refusal({ name: 'exit_plan_mode', input: {} })!, /only for plan mode/);
    modes.switchTo('plan', 'switch');
    for (const name of ['write_file', 'edit_file', 'mcp__jira__create_issue']) assert.match(modes.refusal({ name, input: {} })!, new RegExp(`^${name} is not available in the plan mode\\. Plan mode changes nothing`));
    for (const name of ['read_file', 'grep_search', 'run_shell', 'task', 'exit_plan_mode', 'mcp__github__get_issue']) assert.equal(modes.refusal({ name, input: {} }), undefined, name);
    assert.equal(JSON.stringify(tools.list()), before, 'the tool list sent to the API is the same in every mode');
    assert.equal(modes.refusal({ name: 'no_such_tool', input: {} }), undefined, 'an unknown name is left to the registry, which names the tools there are');
  });

  it('plan mode lets memory be viewed, never written; agent mode writes it', () => {
    const { modes } = modesRig();
    assert.equal(modes.refusal({ name: 'memory', input: { command: 'create', path: '/memories/a.md', file_text: 'x' } }), undefined);
    modes.switchTo('plan', 'switch');
    assert.equal(modes.refusal({ name: 'memory', input: { command: 'view', path: '/memories' } }), undefined);
    for (const command of ['create', 'str_replace', 'insert', 'delete', 'rename']) {
      assert.match(modes.refusal({ name: 'memory', input: { command, path: '/memories/a.md' } })!, new RegExp(`^memory ${command} is not available in the plan mode: plan mode changes nothing`));
    }
    assert.match(modes.refusal({ name: 'memory', input: 'not an object' })!, /^memory writes are not available in the plan mode/);
  });

  it('plan mode offers run_shell only where the sandbox works, and then with the workspace read-only; subagents explore only', () => {
    const withSandbox = modesRig().modes;
    withSandbox.switchTo('plan', 'switch');
    assert.deepEqual(withSandbox.restrictions(), { readOnlyWorkspace: true, subagentTypes: ['explore'] });
    const without = modesRig({ sandbox: false }).modes;
    without.switchTo('plan', 'switch');
    assert.match(without.refusal({ name: 'run_shell', input: { command: 'ls' } })!, /run_shell is not available in the plan mode/);
    assert.equal(modesRig().modes.restrictions(), undefined, 'agent mode limits nothing');
  });

  it('a deferred MCP call is held to the tools the mode offers, by the server the call really reaches', () => {
    const { modes } = modesRig({ deferred: true });
    modes.switchTo('plan', 'switch');
    assert.equal(modes.refusal({ name: 'mcp_call', input: { tool: 'mcp__github__get_issue', arguments: {} } }), undefined);
    assert.match(modes.refusal({ name: 'mcp_call', input: { tool: 'mcp__jira__create_issue', arguments: {} } })!, /mcp__jira__create_issue is not available in the plan mode\. Plan mode offers only the MCP tools the user allowed/);
    assert.equal(modes.refusal({ name: 'mcp_call', input: { tool: 'mcp__nope__x' } }), undefined, 'a call whose tool does not exist is left to mcp_call, which says so');
  });

  it('records and shows a switch, and tells the model once, at the start of the next turn', () => {
    const { modes, entries, events } = modesRig();
    assert.deepEqual(modes.takeLeadingBlocks(), [], 'nothing to tell');
    modes.switchTo('plan', 'switch');
    modes.switchTo('plan', 'switch'); // the same mode again changes nothing
    assert.deepEqual(entries.map((entry) => entry.type === 'mode' && [entry.mode, entry.reason]), [['plan', 'switch']]);
    assert.deepEqual(events.map((event) => event.type === 'mode_changed' && event.mode), ['plan']);
    const blocks = modes.takeLeadingBlocks();
    assert.equal(blocks.length, 1);
    assert.ok(texts(blocks)[0]!.startsWith(`${MODE_SWITCH_MARK}plan mode. Its instructions:`));
    assert.deepEqual(modes.takeLeadingBlocks(), [], 'told once');
    // There and back before the next turn: the model still knows the mode, so nothing is sent.
    modes.switchTo('agent', 'switch');
    modes.switchTo('plan', 'switch');
    assert.deepEqual(modes.takeLeadingBlocks(), []);
  });

  it('an unknown mode is an error that names the modes there are', () => {
    const { modes } = modesRig();
    assert.throws(
      () => modes.switchTo('planner', 'switch'),
      (error: unknown) => {
        assert.ok(error instanceof UnknownModeError);
        // The user reads it in the front end's words; the log keeps the same English.
        assert.equal(error.said.kind, 'customization.unknownMode');
        assert.equal(said(error.said), 'There is no mode "planner". The modes are: agent, plan.');
        assert.equal(errorText(error), said(error.said), 'the extension words it too (the picker, /mode, the panel)');
        assert.equal(error.message, 'There is no mode "planner". The modes are: agent, plan.');
        return true;
      },
    );
    assert.equal(modes.switchTo('PLAN', 'switch').name, 'plan', 'a name in another case still finds its mode');
  });

  it('says when a mode runs on another model than the one running', () => {
    const custom: ModeDefinition = { name: 'fast', description: verbatim('quick'), base: 'agent', model: ['claude-haiku-4-5'] };
    const { modes } = modesRig({ modes: [...BUILT_IN_MODES, custom], models: { running: 'claude-sonnet-4-6', configured: 'claude-sonnet-4-6', serves: (id) => id.startsWith('claude') } });
    assert.equal(modes.wantsOtherModel(), false);
    modes.switchTo('fast', 'switch');
    assert.equal(modes.wantsOtherModel(), true);
    modes.switchTo('agent', 'switch');
    assert.equal(modes.wantsOtherModel(), false);
  });
});

describe('plan decisions', () => {
  it('Build it: agent mode, the steps as the task list now, the decision and the switch opening the next message', () => {
    const { modes, events } = modesRig();
    modes.switchTo('plan', 'switch');
    modes.takeLeadingBlocks();
    const text = modes.decidePlan(proposedHistory(), 'build');
    assert.equal(text, 'Build the plan.');
    assert.equal(modes.current.name, 'agent');
    const shown = events.slice(1).map((event) => event.type);
    assert.deepEqual(shown, ['mode_changed', 'plan_decided', 'todos']);
    const todos = events.find((event): event is Extract<AgentEvent, { type: 'todos' }> => event.type === 'todos');
    assert.deepEqual(todos?.items.map((item) => [item.id, item.text, item.status]), [['1', 'Add the limiter', 'pending'], ['2', 'Test it', 'pending']]);
    const blocks = texts(modes.takeLeadingBlocks());
    assert.equal(blocks.length, 2);
    assert.ok(blocks[0]!.startsWith(`${MODE_SWITCH_MARK}agent mode`));
    assert.match(blocks[1]!, /^\[Plan decision: build\] \(exit_plan_mode call toolu_plan\) .*\n- \[pending\] 1: Add the limiter\n- \[pending\] 2: Test it\n/s);
  });

  it('Keep planning: the note is the message, the mode stays plan (or comes back to it)', () => {
    const { modes } = modesRig();
    assert.equal(modes.decidePlan(proposedHistory(), 'keep_planning', { note: '  Cover the migration too.  ' }), 'Cover the migration too.');
    assert.equal(modes.current.name, 'plan', 'Keep planning in the agent mode goes back to plan');
    assert.match(texts(modes.takeLeadingBlocks()).at(-1)!, /^\[Plan decision: keep planning\] \(exit_plan_mode call toolu_plan\)/);
  });

  it('refuses a decision when no plan waits for one, or for a plan that is not the newest', () => {
    const { modes } = modesRig();
    assert.throws(() => modes.decidePlan([{ role: 'user', content: 'hi' }], 'build'), (error: unknown) => error instanceof PlanDecisionError && /No plan is waiting/.test(error.message));
    const movedOn: MessageParam[] = [...proposedHistory(), { role: 'user', content: [{ type: 'text', text: 'Actually, something else.' }] }];
    assert.throws(() => modes.decidePlan(movedOn, 'build'), PlanDecisionError);
    const failed = proposedHistory();
    failed[2] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_plan', content: 'Invalid input', is_error: true }] };
    assert.throws(() => modes.decidePlan(failed, 'build'), PlanDecisionError, 'a refused call proposed nothing');
    assert.throws(() => modes.decidePlan(proposedHistory(), 'build', { toolUseId: 'toolu_old' }), /no longer the one waiting/);
    assert.equal(modes.current.name, 'agent', 'a refused decision switched nothing');
  });
});

describe('a resume continues in the mode, and shows the plan and the decision again', () => {
  const ts = '2026-01-01T00:00:00.000Z';
  const built: MessageParam = {
    role: 'user',
    content: [
      { type: 'text', text: `${MODE_SWITCH_MARK}agent mode. Work on the task as usual; every tool offered may be used.` },
      { type: 'text', text: '[Plan decision: build] (exit_plan_mode call toolu_plan) The user approved the plan and chose to build it.' },
      { type: 'text', text: 'Build the plan.' },
    ],
  };
  const transcript = (): TranscriptEntry[] => [
    { type: 'mode', ts, mode: 'plan', reason: 'start' },
    ...proposedHistory().map((message): TranscriptEntry => ({ type: 'message', ts, message })),
    { type: 'mode', ts, mode: 'agent', reason: 'build' },
    { type: 'message', ts, message: built },
  ];

  it('folds the newest mode and the one the model was told of', () => {
    assert.equal(foldTranscript([]).mode, undefined, 'a session without mode entries is in agent mode');
    assert.deepEqual(foldTranscript(transcript()).mode, { current: 'agent', told: 'agent' });
    // A switch recorded after the last turn's message: the next message still has to tell it.
    assert.deepEqual(foldTranscript([...transcript(), { type: 'mode', ts, mode: 'plan', reason: 'switch' }]).mode, { current: 'plan', told: 'agent' });
    assert.deepEqual(foldTranscript(transcript().slice(0, 1)).mode, { current: 'plan', told: 'agent' }, 'started in plan, nothing sent yet');
  });

  it("replays the mode lines, the plan card and the decision where the live chat showed them, and the built plan's task list", () => {
    const { display, todos } = foldTranscript(transcript());
    const kinds = display.map((event) => event.type).filter((type) => type !== 'text_delta');
    assert.deepEqual(kinds, ['mode_changed', 'turn_started', 'tool_call_started', 'tool_call_finished', 'plan_proposed', 'mode_changed', 'plan_decided', 'todos', 'turn_finished', 'turn_started', 'turn_finished']);
    const started = display.filter((event): event is Extract<AgentEvent, { type: 'turn_started' }> => event.type === 'turn_started');
    assert.deepEqual(started.map((event) => event.userText), ['Plan the rate limits', 'Build the plan.'], "the session's blocks are no turns of their own");
    const card = display.find((event): event is Extract<AgentEvent, { type: 'plan_proposed' }> => event.type === 'plan_proposed');
    assert.equal(card?.plan, PLAN_MARKDOWN);
    assert.deepEqual(todos?.map((item) => item.text), ['Add the limiter', 'Test it']);
  });

  it('keeps a user message that only looks like a session block as the user wrote it', () => {
    const replayed = eventsFromHistory([{ role: 'user', content: [{ type: 'text', text: `${MODE_SWITCH_MARK}plan mode, says my colleague.` }] }]);
    assert.deepEqual(replayed.map((event) => event.type), ['turn_started', 'turn_finished']);
  });

  it('records the mode as a transcript entry and refuses a malformed one', () => {
    assert.ok('entry' in parseTranscriptEntry({ type: 'mode', ts, mode: 'Security Reviewer', reason: 'switch' }));
    assert.match((parseTranscriptEntry({ type: 'mode', ts, mode: '', reason: 'switch' }) as { problem: string }).problem, /malformed mode entry/);
    assert.match((parseTranscriptEntry({ type: 'mode', ts, mode: 'plan', reason: 'because' }) as { problem: string }).problem, /reason/);
  });
});

describe('the task list after Build it', () => {
  const built = (id: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: `[Plan decision: build] (exit_plan_mode call ${id}) …` }, { type: 'text', text: 'Build the plan.' }] });

  it('is the built plan\'s steps until todo_write replaces them; a plan kept planning or never decided is no list', () => {
    assert.equal(latestTodos(proposedHistory()), undefined, 'proposed, not built');
    assert.deepEqual(latestTodos([...proposedHistory(), built('toolu_plan')])?.map((item) => item.text), ['Add the limiter', 'Test it']);
    const later: MessageParam[] = [
      ...proposedHistory(),
      built('toolu_plan'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_todo', name: 'todo_write', input: { todos: [{ id: '1', text: 'Add the limiter', status: 'done' }] } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_todo', content: 'ok' }] },
    ];
    assert.deepEqual(latestTodos(later)?.map((item) => item.status), ['done']);
    const kept: MessageParam = { role: 'user', content: [{ type: 'text', text: '[Plan decision: keep planning] (exit_plan_mode call toolu_plan) …' }, { type: 'text', text: 'More.' }] };
    assert.equal(latestTodos([...proposedHistory(), kept]), undefined);
    assert.ok(opensTurn(kept) && !opensTurn(proposedHistory()[2]!));
  });
});

describe('the tools honour the limits a mode puts on a call', () => {
  it('run_shell asks the sandbox for a read-only workspace, and never runs outside it or without it', async () => {
    const dirs = makeTempDirs();
    try {
      const asked: WrapOptions[] = [];
      const sandbox: CommandSandbox = {
        state: { kind: 'on', allowedDomains: [] },
        // Records what it was asked for and starts nothing (the fast tier runs no process; test/system/modes.cli.test.ts runs the real sandbox).
        wrap: async (_command, options) => {
          asked.push(options);
          throw new Error('recorded, not run');
        },
      };
      const restricted = { ...makeContext(dirs.workspace), restrictions: { readOnlyWorkspace: true, subagentTypes: ['explore'] as const } };
      const shell = createRunShellTool({ sandbox });
      const outside = await shell.run(shell.parse({ command: 'make install', outside_sandbox_reason: 'needs root' }), restricted);
      assert.equal(outside.isError, true);
      assert.match(outside.content, /only in the sandbox, with the workspace read-only; outside_sandbox_reason is not available/);
      assert.equal(asked.length, 0);
      const unconfined = createRunShellTool({});
      const none = await unconfined.run(unconfined.parse({ command: 'ls' }), restricted);
      assert.match(none.content, /only the OS sandbox can hold/);
      const inside = await shell.run(shell.parse({ command: 'true' }), restricted);
      assert.match(inside.content, /The command was not run: recorded, not run/, 'a sandbox that fails is never a reason to run unconfined');
      assert.equal(asked.at(-1)?.readOnlyWorkspace, true, 'the sandbox is asked for the read-only workspace');
      await shell.run(shell.parse({ command: 'true' }), makeContext(dirs.workspace));
      assert.equal(asked.at(-1)?.readOnlyWorkspace, undefined, 'and only in that mode');
    } finally {
      dirs.cleanup();
    }
  });

  it('task starts only the subagent types the mode allows', async () => {
    const dirs = makeTempDirs();
    try {
      const task = createTaskTool();
      const started: string[] = [];
      const ctx = { ...makeContext(dirs.workspace), runSubagent: async (input: { agentType: string }) => (started.push(input.agentType), { content: 'report' }), restrictions: { readOnlyWorkspace: true, subagentTypes: ['explore'] as const } };
      const general = await task.run(task.parse({ description: 'edit', prompt: 'Edit a.ts', agent_type: 'general' }), ctx);
      assert.equal(general.isError, true);
      assert.match(general.content, /A "general" subagent cannot be started in this mode; only "explore"/);
      assert.equal((await task.run(task.parse({ description: 'look', prompt: 'Look', agent_type: 'explore' }), ctx)).content, 'report');
      assert.deepEqual(started, ['explore']);
    } finally {
      dirs.cleanup();
    }
  });

  it("the sandbox's policy for a read-only workspace: only the command's temp folder is writable, nothing is held in the workspace", () => {
    const input = { workspaceRoot: '/w', home: '/h', privateTmp: '/t/cmd', storageRoot: '/s', sessionDir: '/s/sessions/1', allowedDomains: [], exists: () => true, listDir: () => [{ name: 'package.json', isDirectory: false }] };
    const normal = buildSandboxPolicy(input);
    const readOnly = buildSandboxPolicy({ ...input, readOnlyWorkspace: true });
    assert.deepEqual(normal.allowWrite, ['/w', '/t/cmd']);
    assert.ok(normal.denyWrite.includes('/w/package.json'));
    assert.deepEqual(readOnly.allowWrite, ['/t/cmd']);
    assert.deepEqual(readOnly.denyWrite, []);
    assert.deepEqual([readOnly.denyRead, readOnly.allowRead], [normal.denyRead, normal.allowRead], 'what may be read is the same');
  });
});
