/**
 * Modes (src/core/modes/): agent and plan as data, plan mode's tool set (no writes; run_shell only
 * with the sandbox, read-only; MCP tools only those listed; explore subagents; read-only memory;
 * exit_plan_mode), the per-call gate, and custom modes from Copilot's and Evergreen's files, whose
 * `tools` only narrow.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { loadModes, findMode, modeSwitchText, BUILT_IN_MODES, PLAN_MODE_INSTRUCTIONS, type ModeDefinition } from '../../src/core/modes/modes';
import { modeToolGate, toolsForMode, type ModeToolOptions } from '../../src/core/modes/modeTools';
import { createExitPlanModeTool } from '../../src/core/tools/exitPlanMode';
import { createMemoryTool } from '../../src/core/tools/memory';
import { createToolRegistry } from '../../src/core/tools/registry';
import { createSkillTool } from '../../src/core/tools/skill';
import type { ToolDefinition } from '../../src/core/tools/types';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { said } from '../support/said';
import { verbatim } from '../../src/core/texts/userText';

/** An MCP server's tool, or a stand-in for deferred ones, as mcp/ builds them (only what the mode rules read). */
function mcpTool(name: string, server: string | undefined): ToolDefinition<unknown> {
  return {
    name,
    description: name,
    kind: 'meta',
    ...(server ? { mcpServer: server } : {}),
    context: { kind: 'other', external: true },
    inputSchema: { type: 'object', properties: {} },
    parse: (input) => input,
    headline: () => verbatim(name),
    run: async () => ({ content: '' }),
  };
}

/** Every tool a session can have: the registry's own, the new ones, two MCP servers' tools and the deferred stand-in. */
function sessionTools(): ToolDefinition<unknown>[] {
  const externalTools = [
    createExitPlanModeTool(),
    createMemoryTool({ folder: os.tmpdir() }),
    createSkillTool([]),
    mcpTool('mcp__github__get_issue', 'github'),
    mcpTool('mcp__jira__create_issue', 'jira'),
    mcpTool('mcp_search', undefined),
  ] as ToolDefinition<unknown>[];
  const registry = createToolRegistry({ trusted: true, task: true, externalTools });
  return registry.list().map((spec) => registry.get(spec.name)!);
}

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);
const mode = (name: string): ModeDefinition => BUILT_IN_MODES.find((candidate) => candidate.name === name)!;
const withSandbox: ModeToolOptions = { sandboxAvailable: true, planMcpTools: ['mcp__github__*'] };
const noSandbox: ModeToolOptions = { sandboxAvailable: false, planMcpTools: [] };

describe('modes: agent and plan', () => {
  const available = sessionTools();

  it('agent mode offers every tool but exit_plan_mode, with every subagent and a writable memory', () => {
    const set = toolsForMode(mode('agent'), available, noSandbox);
    assert.deepEqual(names(set.tools), names(available).filter((name) => name !== 'exit_plan_mode'));
    assert.deepEqual([set.shellReadOnly, set.memoryReadOnly, set.subagentTypes], [false, false, ['explore', 'general']]);
  });

  it('plan mode changes nothing: no write tools, a read-only shell with the sandbox, the listed MCP tools, explore only, exit_plan_mode', () => {
    const set = toolsForMode(mode('plan'), available, withSandbox);
    assert.deepEqual(names(set.tools).sort(), [
      'compact', 'exit_plan_mode', 'grep_search', 'list_files', 'mcp__github__get_issue', 'mcp_search', 'memory', 'read_file', 'recall', 'run_shell', 'skill', 'task', 'todo_write',
    ]);
    assert.deepEqual([set.shellReadOnly, set.memoryReadOnly, set.subagentTypes], [true, true, ['explore']]);
  });

  it('plan mode without the sandbox offers no shell, and no MCP tool the user did not list', () => {
    const set = toolsForMode(mode('plan'), available, noSandbox);
    for (const absent of ['run_shell', 'write_file', 'edit_file', 'mcp__github__get_issue', 'mcp__jira__create_issue', 'mcp_search']) assert.ok(!names(set.tools).includes(absent), absent);
    assert.ok(names(set.tools).includes('read_file') && names(set.tools).includes('exit_plan_mode'));
  });

  it('gates each call by the mode, so one tool list can serve every mode', () => {
    const plan = mode('plan');
    const gate = modeToolGate(plan, toolsForMode(plan, available, noSandbox));
    assert.equal(gate('read_file'), undefined);
    assert.match(gate('write_file')!, /^write_file is not available in the plan mode\. Plan mode changes nothing: .*exit_plan_mode/);
    assert.match(gate('run_shell')!, /not available in the plan mode/);
    const agent = mode('agent');
    assert.match(modeToolGate(agent, toolsForMode(agent, available, noSandbox))('exit_plan_mode')!, /only for plan mode/);
  });

  it('tells the model about a switch in one small block, with plan mode its rules', () => {
    assert.match(modeSwitchText(mode('plan')), /^The user switched to the plan mode\. Its instructions:\n\nYou are in plan mode/);
    assert.match(modeSwitchText(mode('agent')), /every tool offered may be used/);
  });
});

describe('modes: custom modes from files', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  beforeEach(() => {
    folders = customizationFolders();
  });
  afterEach(() => folders.cleanup());
  const available = sessionTools();
  const load = (trusted = true) => loadModes({ workspaceRoot: folders.workspace, workspaceTrusted: trusted, home: folders.home });

  it("reads Evergreen's, Copilot's agents and chat modes after the built-ins, each with its description, model and instructions", async () => {
    const { modes } = await load();
    assert.deepEqual(modes.map((item) => [item.name, item.origin?.file]), [
      ['agent', undefined],
      ['plan', undefined],
      ['docs', '.evergreen/modes/docs.md'],
      ['Security Reviewer', '.github/agents/reviewer.agent.md'],
      ['Planner', '.github/chatmodes/Planner.chatmode.md'],
    ]);
    const planner = findMode(modes, 'planner')!;
    assert.equal(planner.description.kind, 'verbatim', "the file's own words, shown as written");
    assert.equal(said(planner.description), 'Generate an implementation plan for new features or refactoring existing code.');
    assert.deepEqual(planner.model, ['Claude Sonnet 4']);
    assert.match(planner.instructions!, /^# Planning mode instructions\nYou are in planning mode/);
    const reviewer = findMode(modes, 'reviewer')!;
    assert.equal(reviewer.name, 'Security Reviewer', 'found by its file name too');
    assert.deepEqual(reviewer.model, ['Claude Opus 4.5', 'GPT-5.2'], "Copilot's list of models to try in order");
    assert.deepEqual(findMode(modes, 'docs')!.model, ['claude-sonnet-4-5']);
    assert.equal(findMode(modes, 'nonexistent'), undefined);
  });

  it('narrows the tools to what a mode lists (mapped from Copilot names), reporting names Evergreen does not have', async () => {
    const { modes, notices } = await load();
    const offered = (name: string) => names(toolsForMode(findMode(modes, name)!, available, withSandbox).tools).sort();
    assert.deepEqual(offered('Planner'), ['compact', 'grep_search', 'list_files', 'read_file', 'recall']);
    assert.deepEqual(offered('Security Reviewer'), ['compact', 'grep_search', 'list_files', 'mcp__github__get_issue', 'mcp_search', 'read_file', 'recall', 'run_shell']);
    assert.deepEqual(offered('docs'), ['compact', 'edit_file', 'grep_search', 'list_files', 'read_file', 'recall', 'write_file']);
    const unknown = notices.find((item) => item.kind === 'unknown-tool' && item.file === '.github/chatmodes/Planner.chatmode.md');
    assert.deepEqual(unknown?.entries, ['findTestFiles', 'githubRepo', 'usages'], 'Copilot\'s fetch is web_fetch');
    assert.deepEqual([...findMode(modes, 'Planner')!.tools!.tools].sort(), ['grep_search', 'list_files', 'read_file', 'web_fetch']);
    assert.ok(notices.some((item) => item.kind === 'unsupported-field' && item.file === '.github/agents/reviewer.agent.md' && item.entries?.includes('handoffs')));
  });

  it('a custom mode on plan keeps plan\'s rules: listing write_file does not bring it back', async () => {
    folders.write(folders.workspace, '.evergreen/modes/review.md', '---\ndescription: Reviews without touching anything\nbase: plan\ntools: [read_file, write_file, run_shell]\n---\nReview like a senior engineer.');
    const { modes } = await load();
    const review = findMode(modes, 'review')!;
    assert.equal(review.base, 'plan');
    const set = toolsForMode(review, available, withSandbox);
    assert.deepEqual(names(set.tools).sort(), ['compact', 'exit_plan_mode', 'read_file', 'recall', 'run_shell']);
    assert.equal(set.shellReadOnly, true);
    assert.deepEqual(names(toolsForMode(review, available, noSandbox).tools).sort(), ['compact', 'exit_plan_mode', 'read_file', 'recall']);
    const text = modeSwitchText(review);
    assert.ok(text.includes(PLAN_MODE_INSTRUCTIONS) && text.endsWith('Review like a senior engineer.'));
  });

  it("keeps the built-in names, takes the user's mode over the workspace's, and reports bad files", async () => {
    folders.write(folders.workspace, '.evergreen/modes/plan.md', 'My own plan mode.');
    folders.write(folders.home, '.evergreen/modes/docs.md', '---\ndescription: My docs mode\n---\nWrite docs my way.');
    folders.write(folders.workspace, '.github/chatmodes/broken.chatmode.md', '---\ntools: [read\n---\nBody');
    folders.write(folders.workspace, '.github/chatmodes/typed.chatmode.md', '---\ntools: 42\nbase: plan\n---\nBody');
    const { modes, notices } = await load();
    assert.equal(findMode(modes, 'plan')!.origin, undefined, 'the built-in plan mode');
    assert.equal(findMode(modes, 'docs')!.origin!.file, '~/.evergreen/modes/docs.md');
    assert.ok(notices.some((item) => item.kind === 'shadowed' && item.file === '.evergreen/modes/plan.md' && /built-in plan mode/.test(said(item.message))));
    assert.ok(notices.some((item) => item.kind === 'shadowed' && item.file === '.evergreen/modes/docs.md'));
    assert.ok(notices.some((item) => item.kind === 'invalid-frontmatter' && item.file === '.github/chatmodes/broken.chatmode.md'));
    assert.ok(notices.some((item) => item.kind === 'invalid-field' && /"tools" must be a list/.test(said(item.message))));
    const typed = findMode(modes, 'typed')!;
    assert.equal(typed.tools, undefined);
    assert.equal(typed.base, 'agent', 'base is an Evergreen field; a Copilot file is always on agent');
  });

  it("loads only the built-in and the user's own modes in an untrusted workspace", async () => {
    folders.write(folders.home, '.evergreen/modes/mine.md', 'My mode.');
    const { modes, notices } = await load(false);
    assert.deepEqual(modes.map((item) => item.name), ['agent', 'plan', 'mine']);
    assert.match(said(notices.find((item) => item.kind === 'untrusted')!.message), /\.evergreen\/modes, \.github\/agents, \.github\/chatmodes/);
  });
});
