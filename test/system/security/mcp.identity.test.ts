// Issue 26: `mcp__a_b__*`, written for the user's server "a_b", also approved every tool of a
// consented workspace server named "a.b", "a b" or "a/b": all of them sanitize to "a_b". An
// allow-list entry names a server by its identity (its name as configured), and servers whose names
// sanitize alike get distinct tool names that do not depend on which of them started.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpConfigValue, type McpServerConfig } from '../../../src/core/mcp/config';
import { McpManager } from '../../../src/core/mcp/manager';
import { silentLogger } from '../../../src/core/logger';
import { type ApprovalPolicy } from '../../../src/core/approvals/approval';
import type { ToolDefinition } from '../../../src/core/tools/types';
import { subagentTools } from '../../../src/core/agent/subagents';
import { BUILT_IN_MODES } from '../../../src/core/modes/modes';
import { toolsForMode } from '../../../src/core/modes/modeTools';
import { createToolRegistry } from '../../../src/core/tools/registry';
import { makeTempDirs, policyContext, type TempDirs } from '../../support/toolFixtures';
import { said } from '../../support/said';

const MANY = path.resolve(__dirname, '../../fixtures/mcp/manyTools.mjs');
const LOOKALIKES = ['a.b', 'a b', 'a/b'];
const policy = (mcpAllowList: string[]): ApprovalPolicy => ({ writes: 'ask', shell: 'ask', shellAllowList: [], mcpAllowList });

function serverConfig(name: string, scope: 'user' | 'workspace'): McpServerConfig {
  // One tool_0 and weather_lookup each: every server offers the same tool names.
  const parsed = parseMcpConfigValue({ [name]: { command: process.execPath, args: [MANY], env: { MANY_TOOLS: '1' } } }, { scope, source: scope === 'user' ? 'test' : '/repo/.vscode/mcp.json' }, { env: {} }, { bare: true });
  assert.equal(parsed.problems.length, 0, JSON.stringify(parsed.problems));
  return parsed.servers[0]!;
}

describe('security: MCP servers whose names sanitize alike', function () {
  this.timeout(60_000);
  let dirs: TempDirs;
  const managers: McpManager[] = [];
  const servers = () => [serverConfig('a_b', 'user'), ...LOOKALIKES.map((name) => serverConfig(name, 'workspace'))];
  const start = async (disabled: string[] = []) => {
    const manager = new McpManager(servers(), { logger: silentLogger, clientVersion: 'test', filesDir: dirs.root });
    managers.push(manager);
    for (const name of disabled) await manager.disable(name);
    await manager.startAll();
    return { manager, tools: manager.tools([], Number.POSITIVE_INFINITY, 4).tools };
  };
  beforeEach(() => {
    dirs = makeTempDirs();
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.stopAll()));
    dirs.cleanup();
  });

  it('get distinct tool names, the same whichever of them started, and a notice names the collision', async () => {
    const { manager, tools } = await start();
    const names = tools.map((tool) => tool.name);
    assert.equal(names.length, 8);
    assert.equal(new Set(names).size, 8, names.join(' '));
    // The server whose name needed no change keeps Claude Code's name; the lookalikes are told apart.
    assert.ok(names.includes('mcp__a_b__tool_0'), names.join(' '));
    for (const name of names) assert.match(name, /^mcp__[A-Za-z0-9_-]+__(tool_0|weather_lookup)$/);
    assert.deepEqual(manager.notices().map((notice) => notice.kind), ['start.mcpNameCollision']);
    const notices = manager.notices().map(said).join('\n');
    for (const server of ['a_b', ...LOOKALIKES]) assert.ok(notices.includes(`"${server}"`), notices);

    // Without "a_b" ready (failed, disabled, slow): the others keep their names, so transcripts and allow lists stay true.
    const again = await start(['a_b']);
    const lookalikeNames = (list: ToolDefinition<unknown>[]) => list.filter((tool) => !tool.name.startsWith('mcp__a_b__')).map((tool) => tool.name).sort();
    assert.deepEqual(lookalikeNames(again.tools), lookalikeNames(tools));
    assert.equal(again.tools.length, 6);
  });

  it('an allow list written for "a_b" runs its tools without asking and asks for each lookalike\'s', async () => {
    const { tools } = await start();
    const ctx = policyContext(dirs.workspace, policy(['mcp__a_b__*']));
    const asked = ctx.asked;
    const weather = tools.filter((tool) => tool.name.endsWith('__weather_lookup'));
    assert.equal(weather.length, 4);
    const ran: string[] = [];
    for (const tool of weather) {
      const result = await tool.run(tool.parse({ city: 'Oslo' }), ctx);
      if (!result.isError) ran.push(tool.name);
    }
    assert.deepEqual(ran, ['mcp__a_b__weather_lookup']);
    assert.deepEqual(asked.map((request) => (request.kind === 'mcp' ? request.server : request.kind)).sort(), [...LOOKALIKES].sort());

    // An explore subagent gets the allow-listed server's tools only, and so does plan mode from its list.
    const registry = createToolRegistry({ trusted: true, task: true, externalTools: tools });
    const explore = subagentTools(registry, 'explore', ['mcp__a_b__*']).list().map((tool) => tool.name).filter((name) => name.startsWith('mcp__'));
    assert.deepEqual(explore.sort(), ['mcp__a_b__tool_0', 'mcp__a_b__weather_lookup']);
    const plan = toolsForMode(BUILT_IN_MODES.find((mode) => mode.name === 'plan')!, tools, { sandboxAvailable: false, planMcpTools: ['mcp__a_b__*'] });
    assert.deepEqual(plan.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__')).sort(), ['mcp__a_b__tool_0', 'mcp__a_b__weather_lookup']);
  });
});
