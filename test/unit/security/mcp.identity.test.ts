// Issue 26: `mcp__a_b__*`, written for the user's server "a_b", also approved every tool of a
// consented workspace server named "a.b", "a b" or "a/b": all of them sanitize to "a_b". An
// allow-list entry names a server by its identity (its name as configured), and servers whose names
// sanitize alike get distinct tool names that do not depend on which of them started.
import assert from 'node:assert/strict';
import { decide, type ApprovalPolicy, type ApprovalRequest } from '../../../src/core/approvals/approval';

const LOOKALIKES = ['a.b', 'a b', 'a/b'];
const policy = (mcpAllowList: string[]): ApprovalPolicy => ({ writes: 'ask', shell: 'ask', shellAllowList: [], mcpAllowList });
const call = (server: string, tool: string, fullName: string): ApprovalRequest => ({ kind: 'mcp', server, tool, fullName, arguments: '{}' });

describe('security: the MCP allow list names a server by its identity', () => {
  it('mcp__a_b__* and mcp__a_b__get approve server "a_b" only, never "a.b", "a b" or "a/b"', () => {
    for (const entry of ['mcp__a_b__*', 'mcp__a_b__get']) {
      assert.equal(decide(policy([entry]), call('a_b', 'get', 'mcp__a_b__get')), 'auto', entry);
      // Each lookalike as it would be named when "a_b" is not in the session (its sanitized name).
      for (const server of LOOKALIKES) assert.equal(decide(policy([entry]), call(server, 'get', 'mcp__a_b__get')), 'ask', `${entry} must not approve "${server}"`);
    }
  });

  it('a server whose name needs sanitizing is allowed by its own name, or by the name its tool is offered under', () => {
    assert.equal(decide(policy(['mcp__a.b__*']), call('a.b', 'get', 'mcp__a_b__get')), 'auto');
    assert.equal(decide(policy(['mcp__a.b__*']), call('a b', 'get', 'mcp__a_b__get')), 'ask');
    assert.equal(decide(policy(['mcp__a.b__get.x']), call('a.b', 'get.x', 'mcp__a_b__get_x')), 'auto');
    // The card's name for a tool whose own name was sanitized, on a server whose name was not.
    assert.equal(decide(policy(['mcp__github__get_x']), call('github', 'get.x', 'mcp__github__get_x')), 'auto');
    assert.equal(decide(policy(['mcp__github__get_x']), call('git.hub', 'get.x', 'mcp__github__get_x')), 'ask');
  });
});
