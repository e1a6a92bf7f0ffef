import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import * as path from 'node:path';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { waitFor } from '../support/waitFor';
import { waitForMarked } from '../support/processMarkers';

// The user's MCP server (evergreen.mcp.servers) in the real extension host: its tool is offered,
// the call waits for the approval card's answer, and the result reaches the model.
describe('an MCP server in the extension host (issue 16)', () => {
  let fake: FakeAnthropic;
  const config = () => vscode.workspace.getConfiguration('evergreen');
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await config().update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
    await config().update('mcp.servers', { everything: { command: process.execPath, args: [everything, 'stdio'] } }, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('mcp.servers', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('evergreen.newChat');
    await fake.close();
  });

  it('offers mcp__everything__echo, asks on the approval card, and returns the result to the model', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.toolUse('mcp__everything__echo', { message: 'through the card' }, { id: 'toolu_mcp_echo' }), reply.text('The server echoed it.'));
    const sent = api.sendMessage('Echo something through MCP.');
    // The call waits for the user: the card's approval event arrives, then the panel's answer.
    await waitFor(() => api.chatEventTypes().includes('approval_needed'), { what: 'an approval to be asked', timeoutMs: 30_000 }).catch(() => assert.fail(`no approval was asked: ${api.chatEventTypes().join(', ')}`));
    assert.equal(fake.messageRequests().length, 1, 'nothing ran before the answer');
    await api.decideApproval('toolu_mcp_echo', true);
    await sent;
    const requests = fake.messageRequests();
    assert.equal(requests.length, 2, JSON.stringify(requests.map((request) => request.reply)));
    const tools = (requests[0]!.body as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name) ?? [];
    assert.ok(tools.includes('mcp__everything__echo'), tools.join(', '));
    assert.match(JSON.stringify((requests[1]!.body as { messages: unknown[] }).messages), /Echo: through the card/, "the server's answer (not the model's own input) reached the model");
    const types = api.chatEventTypes();
    assert.ok(types.indexOf('approval_resolved') > types.indexOf('approval_needed'), types.join(', '));
    assert.equal(types.at(-1), 'turn_finished');
  });

  it('closing a chat ends its server with what it started through setsid (issue 26)', async function () {
    if (process.platform !== 'linux') this.skip(); // the PID namespace is Linux's
    const marker = `evergreen-int-mcp-gc-${process.pid}`;
    // A server that starts a grandchild in a session of its own and never ends by itself (test/fixtures/mcp/setsidServer.mjs).
    const leaky = path.resolve(__dirname, '../../../test/fixtures/mcp/setsidServer.mjs');
    await config().update('mcp.servers', { leaky: { command: process.execPath, args: [leaky], env: { MCP_MARKER: marker } } }, vscode.ConfigurationTarget.Global);
    const api = await vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent')!.activate();
    try {
      await vscode.commands.executeCommand('evergreen.newChat');
      fake.enqueue(reply.text('Hello.'));
      await api.sendMessage('Hello.');
      assert.equal((await waitForMarked(marker, 1, 30_000)).length, 1, 'the server started its grandchild');
      // New Chat keeps the chat open (issue 31); closing it ends its session and servers.
      await vscode.commands.executeCommand('evergreen.closeChat', api.openChats().find((chat) => chat.shown)?.id);
      assert.deepEqual(await waitForMarked(marker, 0, 10_000), [], 'the setsid grandchild outlived its chat');
    } finally {
      for (const pid of await waitForMarked(marker, 0, 0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });
});
