// What a session's start tells the user (agent/startNotices.ts and the subsystems it gathers from),
// as the CLI and the extension word it: each names its own flag or setting, never the other's.
import assert from 'node:assert/strict';
import { announceStart } from '../../src/core/agent/startNotices';
import type { AgentEvent } from '../../src/core/agent/events';
import { lineLogger } from '../../src/core/logger';
import { applyConsent } from '../../src/core/mcp/load';
import { mcpServerParts } from '../../src/core/mcp/names';
import type { McpServerConfig } from '../../src/core/mcp/config';
import { storageErrorMessage } from '../../src/core/storage/sessionStore';
import { userText } from '../../src/core/texts/userText';
import { verbatim } from '../../src/core/texts/userText';
import { configureWords } from '../../src/frontends/words';
import { said } from '../support/said';

const nothing = { thinking: [], sandbox: undefined, webSearchMissing: false, mcp: undefined, mcpTools: undefined, mcpSettings: undefined, mcpDeferShare: 0.1, promptNotices: [], customization: [] };

function announce(what: Partial<Parameters<typeof announceStart>[1]>): { events: AgentEvent[]; log: string[] } {
  const events: AgentEvent[] = [];
  const log: string[] = [];
  announceStart({ logger: lineLogger((line) => log.push(line)), onEvent: (event) => events.push(event) }, { ...nothing, ...what });
  return { events, log };
}

const messageOf = (event: AgentEvent | undefined): string => (event && 'message' in event && typeof event.message === 'object' ? said(event.message) : assert.fail(`no notice: ${JSON.stringify(event)}`));

function server(name: string, scope: 'user' | 'workspace', source: string, display: string): McpServerConfig {
  return { name, origin: { scope, source }, transport: { type: 'stdio', command: display, args: [], env: {} }, consentKey: name, display };
}

describe("a session's start notices, in each front end's words", () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('web search without a search of its own names the CLI flag or the VS Code setting, and the log holds the kind', () => {
    const { events, log } = announce({ webSearchMissing: true });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'web_notice');
    assert.equal(events[0]?.type === 'web_notice' && events[0].message.kind, 'start.webSearchMissing');
    assert.equal(messageOf(events[0]), 'Web search is on, but this back end has no search of its own: set --searxng-url to a SearXNG instance; until then the model has no web_search tool.');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(messageOf(events[0]), 'Web search is on, but this back end has no search of its own: set evergreen.web.searxngUrl to a SearXNG instance; until then the model has no web_search tool.');
    assert.ok(log.some((line) => line.includes('start.webSearchMissing')), log.join('\n'));
  });

  it('an MCP configuration problem says where, what, and what to do; settings notices come first, as they were given', () => {
    const problems = [
      { where: '/w/.mcp.json', message: userText('start.mcpConfigNotObject', {}) },
      { where: '/w/.mcp.json $.mcpServers.x.url', message: verbatim('not a URL: "x"') },
    ];
    const { events } = announce({ mcpSettings: { problems, notices: [verbatim('The front end says this.')] } });
    assert.deepEqual(
      events.map((event) => [event.type, messageOf(event)]),
      [
        ['mcp_notice', 'The front end says this.'],
        ['mcp_notice', 'MCP configuration /w/.mcp.json: must be a JSON object. Fix it and start a new chat.'],
        ['mcp_notice', 'MCP configuration /w/.mcp.json $.mcpServers.x.url: not a URL: "x". Fix it and start a new chat.'],
      ],
    );
  });

  it("workspace servers without consent: one notice listing them, with each front end's way to allow them", () => {
    const servers = [server('mine', 'user', 'the setting', 'srv'), server('db', 'workspace', '/w/.mcp.json', 'db-server --port 1'), server('web', 'workspace', '/w/.vscode/mcp.json', 'web-server')];
    const { allowed, notices } = applyConsent(servers, (candidate) => candidate.name === 'nobody');
    assert.deepEqual(allowed.map((candidate) => candidate.name), ['mine']);
    assert.equal(notices.length, 1);
    const listed = 'This workspace defines MCP servers that did not start: "db" (.mcp.json: db-server --port 1) and "web" (mcp.json: web-server). A server from the workspace runs a command the repository chose, so it needs your consent:';
    assert.equal(said(notices[0]!), `${listed} run with --trust-workspace-mcp to allow them.`);
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(notices[0]!), `${listed} allow them when Evergreen asks at the start of a New Chat.`);
    assert.deepEqual(applyConsent(servers.slice(0, 1), () => false).notices, [], 'nothing withheld, nothing said');
  });

  it('servers whose names read the same in a tool name: named apart, and how an allow-list entry names one', () => {
    const { collisions, parts } = mcpServerParts(['my server', 'my_server', 'other']);
    assert.equal(collisions.length, 1);
    assert.equal(
      said(collisions[0]!),
      `The MCP servers "my server" (mcp__${parts.get('my server')}__…) and "my_server" (mcp__my_server__…) all read "my_server" once made fit for a tool name, so their tools are named apart as shown. An allow-list entry names a server as configured (mcp__my server__*), so it never reaches another of them.`,
    );
  });

  it('MCP tools behind mcp_search, and a server that failed', () => {
    assert.equal(
      said(userText('start.mcpToolsDeferred', { tools: 301, tokens: 41_250, share: 10 })),
      "The MCP servers' 301 tools would take ~41,250 tokens of every request (over 10% of the window): the model finds them with mcp_search and calls them with mcp_call.",
    );
    assert.equal(said(userText('start.mcpServerFailed', { name: 'gone', reason: 'spawn gone ENOENT' })), 'MCP server "gone": spawn gone ENOENT. Its tools are not available in this chat; fix it and start a new chat.');
  });

  it('a transcript that cannot be written: why, and that the conversation goes on unsaved', () => {
    const next = 'The conversation goes on, but it is not being saved; free space or fix the permissions, then start a New Chat to save again.';
    const failed = (code: string | undefined) => storageErrorMessage(Object.assign(new Error(`${code ?? 'EIO'}: it failed`), code ? { code } : {}), '/s/t.jsonl');
    assert.equal(said(failed('ENOSPC')), `The disk is full: Evergreen cannot write the transcript /s/t.jsonl. ${next}`);
    assert.equal(said(failed('EACCES')), `The session storage is not writable (EACCES): Evergreen cannot write the transcript /s/t.jsonl. ${next}`);
    assert.equal(said(failed(undefined)), `Evergreen cannot write the transcript /s/t.jsonl: EIO: it failed. ${next}`);
  });

  it('thinking the server refused, and a model that cannot think', () => {
    assert.equal(
      said(userText('start.reasoningEffortRefused', { server: 'http://127.0.0.1:1/v1', model: 'gpt-5', said: '400 Unrecognized request argument supplied: reasoning_effort' })),
      'The server at http://127.0.0.1:1/v1 refuses reasoning_effort for gpt-5, so this session runs without thinking (the server said: 400 Unrecognized request argument supplied: reasoning_effort).',
    );
    const { events } = announce({ thinking: [{ level: 'info', message: userText('start.thinkingUnsupportedAuto', { model: 'gpt-4.1' }) }] });
    assert.equal(events[0]?.type, 'thinking_notice');
    assert.equal(messageOf(events[0]), "Thinking is off: gpt-4.1 cannot be asked to think (Evergreen's model table lists no thinking for it).");
  });
});
