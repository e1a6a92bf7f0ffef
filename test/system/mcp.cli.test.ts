/**
 * MCP servers in a whole session through the CLI, on both back ends: the real reference servers
 * from npm as the user's (--mcp-config) and the workspace's (.mcp.json, only with consent).
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { toolResultsOf, toolResultText } from '../../src/core/model/content';
import { BACKENDS, say, type FakeBackend, type SentRequest } from '../support/backends';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { transcriptLines, type SessionMeta } from '../../src/core/storage/sessionStore';
import { openCliFixture, useCliFixture } from '../support/cliFixture';
import { saidTooltip } from '../support/gaugeSaid';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const ODD = path.resolve(__dirname, '../fixtures/mcp/oddServer.mjs');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** The tool names a request offered, from its wire body (either provider's shape). */
function toolNames(request: SentRequest): string[] {
  const tools = (request.raw as { tools?: Array<{ name?: string; function?: { name?: string } }> }).tools ?? [];
  return tools.map((tool) => tool.name ?? tool.function?.name ?? '');
}

/** The tool results the request's last message carries, as text. */
function resultText(request: SentRequest | undefined): string {
  const last = request?.messages.at(-1);
  return last ? toolResultsOf(last).map(toolResultText).join('\n') : '';
}

/**
 * The images a request carried for one tool call, from its wire body: Anthropic's image blocks in
 * the tool_result; on Chat Completions the image_url parts after the call's label in the user
 * message that follows the tool messages.
 */
function imagesSent(request: SentRequest | undefined, callId: string): Array<{ mediaType: string; data: string }> {
  if (!request) return [];
  const raw = request.raw as { messages: Array<{ role: string; content?: unknown; tool_call_id?: string }> };
  const out: Array<{ mediaType: string; data: string }> = [];
  if (!raw.messages.some((message) => message.role === 'tool')) {
    for (const message of raw.messages) {
      for (const block of Array.isArray(message.content) ? (message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>) : []) {
        if (block.type !== 'tool_result' || block.tool_use_id !== callId || !Array.isArray(block.content)) continue;
        for (const part of block.content as Array<{ type: string; source?: { media_type: string; data: string } }>) if (part.type === 'image' && part.source) out.push({ mediaType: part.source.media_type, data: part.source.data });
      }
    }
    return out;
  }
  const at = raw.messages.findIndex((message) => message.role === 'tool' && message.tool_call_id === callId);
  const user = raw.messages.slice(at + 1).find((message) => message.role !== 'tool');
  if (at < 0 || user?.role !== 'user' || !Array.isArray(user.content)) return out;
  const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
  for (let index = parts.findIndex((part) => part.text === `[images returned by tool call ${callId}]`) + 1; index > 0 && parts[index]?.type === 'image_url'; index++) {
    const match = /^data:([^;]+);base64,(.*)$/s.exec(parts[index]!.image_url!.url);
    if (match) out.push({ mediaType: match[1]!, data: match[2]! });
  }
  return out;
}

/** Writes mcp.json with these servers (Claude Code's format) into the storage folder; returns its path. */
function writeMcpConfig(storage: string, servers: Record<string, unknown>): string {
  const config = path.join(storage, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return config;
}

for (const backend of BACKENDS) {
  describe(`MCP servers in a CLI session [${backend.name}]`, function () {
    this.timeout(90_000);
    const fixture = useCliFixture(backend, { args: ['--output-format', 'stream-json'] });
    let fake: FakeBackend;
    let workspace: string;
    let storage: string;
    let config: string;
    beforeEach(() => {
      ({ fake, workspace, storage } = fixture());
      config = writeMcpConfig(storage, { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
    });

    const cli = (args: string[]) => fixture().run(args);

    it('offers the user\'s server\'s tools as mcp__server__tool and returns a call\'s result to the model', async () => {
      fake.enqueue(say.toolUse('mcp__everything__echo', { message: 'hello from the model' }, { id: 'toolu_echo' }), say.text('Done.'));
      const run = await cli(['--mcp-config', config, '--yes', '-p', 'Echo something.']);
      assert.equal(run.code, 0, run.stderr);
      const [first, second] = fake.requests();
      assert.ok(first && toolNames(first).includes('mcp__everything__echo'), toolNames(first!).join(', '));
      assert.ok(toolNames(first).includes('read_file'), 'the built-in tools stay');
      assert.match(resultText(second), /hello from the model/);
      const finished = run.events.find((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
      assert.equal(finished?.name, 'mcp__everything__echo');
      assert.equal(finished.isError, false);
      // The gauge counts the server's definitions on a line of their own.
      const breakdown = run.events.flatMap((event) => (event.type === 'context' && event.gauge.breakdown ? [event.gauge.breakdown] : [])).at(-1);
      assert.ok(breakdown && breakdown.mcpTools > 0 && breakdown.tools > 0, JSON.stringify(breakdown));
      assert.match(run.events.flatMap((event) => (event.type === 'context' ? [saidTooltip(event.gauge.reading)] : [])).at(-1) ?? '', /MCP tools: /);
    });

    it('asks before a call by default: without a terminal and without --yes it is declined, and the server never sees it', async () => {
      fake.enqueue(say.toolUse('mcp__everything__echo', { message: 'secret plan' }, { id: 'toolu_echo' }), say.text('Understood.'));
      const run = await cli(['--mcp-config', config, '-p', 'Echo something.']);
      assert.equal(run.code, 0, run.stderr);
      const asked = run.events.find((event): event is Extract<AgentEvent, { type: 'approval_needed' }> => event.type === 'approval_needed');
      assert.equal(asked?.request.kind, 'mcp');
      assert.ok(asked.request.kind === 'mcp');
      assert.equal(asked.request.server, 'everything');
      assert.equal(asked.request.tool, 'echo');
      assert.match(asked.request.arguments, /"message": "secret plan"/);
      assert.match(run.stderr, /declined calling echo on the MCP server everything/);
      assert.doesNotMatch(resultText(fake.requests()[1]), /Echo: secret plan/);
    });

    it("starts the workspace's servers only with --trust-workspace-mcp, and says how otherwise", async () => {
      fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
      fake.enqueue(say.text('Hi.'));
      const without = await cli(['-p', 'Hello.']);
      assert.equal(without.code, 0, without.stderr);
      assert.ok(!toolNames(fake.requests()[0]!).some((name) => name.startsWith('mcp__')), 'no MCP tool without consent');
      const notice = without.events.find((event): event is Extract<AgentEvent, { type: 'mcp_notice' }> => event.type === 'mcp_notice');
      assert.match(said(notice?.message) ?? '', /"repo" \(\.mcp\.json: .*\).*--trust-workspace-mcp/);
      fake.enqueue(say.text('Hi again.'));
      const trusted = await cli(['--trust-workspace-mcp', '-p', 'Hello.']);
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.ok(toolNames(fake.requests()[1]!).includes('mcp__repo__echo'));
    });

    it('a workspace server whose name sanitizes like a user server\'s gets tools of its own name, and a notice says so', async () => {
      fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { 'every.thing': { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
      const userConfig = path.join(storage, 'lookalike.json');
      fs.writeFileSync(userConfig, JSON.stringify({ mcpServers: { every_thing: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
      fake.enqueue(say.text('Hi.'));
      const run = await cli(['--mcp-config', userConfig, '--trust-workspace-mcp', '-p', 'Hello.']);
      assert.equal(run.code, 0, run.stderr);
      const echoes = toolNames(fake.requests()[0]!).filter((name) => name.endsWith('__echo'));
      assert.equal(echoes.length, 2, echoes.join(' '));
      assert.ok(echoes.includes('mcp__every_thing__echo'), 'the user\'s server keeps the name its user wrote');
      const notices = run.events.flatMap((event) => (event.type === 'mcp_notice' ? [said(event.message)] : []));
      assert.ok(notices.some((message) => message.includes('"every.thing"') && message.includes('"every_thing"')), notices.join('\n'));
    });

    it('a broken config file and a server that fails to start are named in notices; the session goes on without them', async () => {
      const broken = path.join(storage, 'broken.json');
      fs.writeFileSync(broken, '{"mcpServers": {"x": {"command": 5}}}');
      const missing = path.join(storage, 'missing.json');
      fs.writeFileSync(missing, JSON.stringify({ mcpServers: { gone: { command: 'evergreen-no-such-server-xyz' } } }));
      fake.enqueue(say.text('Fine.'));
      const run = await cli(['--mcp-config', broken, '--mcp-config', missing, '-p', 'Hello.']);
      assert.equal(run.code, 0, run.stderr);
      const notices = run.events.flatMap((event) => (event.type === 'mcp_notice' ? [said(event.message)] : []));
      assert.ok(notices.some((message) => message.includes(`${broken} $.mcpServers.x.command`)), notices.join('\n'));
      assert.ok(notices.some((message) => /MCP server "gone": .*ENOENT/.test(message)), notices.join('\n'));
    });

    it("an image tool's picture reaches the model as an image, is saved in the session, named in the transcript, and sent again on resume", async () => {
      fake.enqueue(say.toolUse('mcp__everything__get-tiny-image', {}, { id: 'toolu_img' }), say.text('The MCP logo.'));
      const run = await cli(['--mcp-config', config, '--yes', '-p', 'Show me the logo.']);
      assert.equal(run.code, 0, run.stderr);
      const text = resultText(fake.requests()[1]);
      assert.match(text, /shown to the model as an image/);
      const saved = /saved to (\S+\.png);/.exec(text)?.[1];
      assert.ok(saved && fs.existsSync(saved), text);
      const sent = imagesSent(fake.requests()[1], 'toolu_img');
      assert.deepEqual(sent, [{ mediaType: 'image/png', data: fs.readFileSync(saved).toString('base64') }], 'the image itself, as the server sent it');
      assert.ok(!text.includes(sent[0]!.data.slice(0, 40)), 'no base64 in the text');

      const started = run.events[0];
      assert.ok(started?.type === 'session_started');
      const transcript = path.join(storage, 'sessions', started.sessionId, 'transcript.jsonl');
      const meta = JSON.parse(fs.readFileSync(path.join(storage, 'sessions', started.sessionId, 'meta.json'), 'utf8')) as SessionMeta;
      const markdown = (await renderTranscript(meta, transcriptLines(transcript))).text;
      assert.match(markdown, /\[image: image\/png, 20x20\]/);
      assert.ok(!markdown.includes(sent[0]!.data.slice(0, 40)), 'the markdown names the image, never inlines it');

      fake.enqueue(say.text('Still the logo.'));
      const resumed = await cli(['--resume', started.sessionId, '--mcp-config', config, '--yes', '-p', 'What was it again?']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(imagesSent(fake.requests()[2], 'toolu_img'), sent, 'the resumed session sends the same image');
      assert.deepEqual(fake.rejectedRequests(), []);
    });

    it('images the providers would refuse are described, never sent, and no request fails', async () => {
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [ODD] } } }));
      fake.enqueue(say.toolUse('mcp__odd__images', {}, { id: 'toolu_odd' }), say.text('Seen.'));
      const run = await cli(['--mcp-config', config, '--yes', '-p', 'Show me the images.']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(fake.rejectedRequests(), []);
      assert.deepEqual(imagesSent(fake.requests()[1], 'toolu_odd').map((image) => image.mediaType), ['image/png', 'image/png']);
      assert.match(resultText(fake.requests()[1]), /not shown to the model: it is 9000x10 px/);
    });

    it('a 3 MB result goes through tier 0: saved whole, the model gets head and tail and the path', async () => {
      const big = path.join(workspace, 'big.log');
      const line = 'a line of the big log file with some words in it 0123456789\n';
      fs.writeFileSync(big, line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [FILESYSTEM, workspace] } } }));
      fake.enqueue(say.toolUse('mcp__files__read_text_file', { path: big }, { id: 'toolu_big' }), say.text('Read it.'));
      const run = await cli(['--mcp-config', config, '--yes', '-p', 'Read the log.']);
      assert.equal(run.code, 0, run.stderr);
      const seen = resultText(fake.requests()[1]);
      assert.ok(seen.length < 100_000, `${seen.length} characters reached the model`);
      const saved = /(\S+tool-results\S+)/.exec(seen)?.[1]?.replace(/[).,]+$/, '');
      assert.ok(saved && fs.existsSync(saved), seen.slice(0, 600));
      assert.equal(fs.readFileSync(saved, 'utf8'), fs.readFileSync(big, 'utf8'), 'the output on disk is complete');
    });
  });
}

const MANY_TOOLS = path.resolve(__dirname, '../fixtures/mcp/manyTools.mjs');
const BIG_RESULT = path.resolve(__dirname, '../fixtures/mcp/bigResult.mjs');

// One back end: what happens to a result does not depend on it, and 50 MB is slow enough once.
describe(`a 50 MB MCP result [${BACKENDS[0]!.name}]`, function () {
  this.timeout(120_000);
  it('is saved whole on disk by tier 0; the model gets head, tail and the path', async () => {
    const rig = await openCliFixture(BACKENDS[0]!, { args: ['--output-format', 'stream-json'] });
    const fake = rig.fake;
    const config = writeMcpConfig(rig.storage, { big: { command: process.execPath, args: [BIG_RESULT], env: { BIG_RESULT_MB: '50' } } });
    try {
      fake.enqueue(say.toolUse('mcp__big__dump', {}, { id: 'toolu_50mb' }), say.text('That was big.'));
      const run = await rig.run(['--mcp-config', config, '--yes', '-p', 'Dump it.']);
      assert.equal(run.code, 0, run.stderr);
      const seen = resultText(fake.requests()[1]);
      assert.ok(seen.length < 100_000, `${seen.length} characters reached the model`);
      const saved = /(\S+tool-results\S+)/.exec(seen)?.[1]?.replace(/[).,]+$/, '');
      assert.ok(saved && fs.existsSync(saved), seen.slice(0, 600));
      const size = 50 * 1024 * 1024;
      assert.equal(fs.statSync(saved).size, size + 3, 'every byte is on disk');
      const fd = fs.openSync(saved, 'r');
      const tail = Buffer.alloc(8);
      fs.readSync(fd, tail, 0, 8, size - 5);
      fs.closeSync(fd);
      assert.equal(tail.toString(), 'xxxxxEND');
    } finally {
      await rig.close();
    }
  });
});

for (const backend of BACKENDS) {
  describe(`MCP tool definitions of any number [${backend.name}]`, function () {
    this.timeout(90_000);
    const fixture = useCliFixture(backend, { args: ['--output-format', 'stream-json', '--context-window', '64000', '--yes'] });
    let fake: FakeBackend;
    let storage: string;
    let config: string;
    beforeEach(() => {
      ({ fake, storage } = fixture());
      config = writeMcpConfig(storage, { big: { command: process.execPath, args: [MANY_TOOLS] } });
    });
    const cli = (args: string[]) => fixture().run(['--mcp-config', config, ...args]);

    it('301 tools over 10% of a 64k window: mcp_search and mcp_call instead, the tools array the same on every request', async () => {
      fake.enqueue(
        say.toolUse('mcp_search', { query: 'weather city' }, { id: 'toolu_s' }),
        say.toolUse('mcp_call', { tool: 'mcp__big__weather_lookup', arguments: { town: 'Oslo' } }, { id: 'toolu_bad' }),
        say.toolUse('mcp_call', { tool: 'mcp__big__weather_lookup', arguments: { city: 'Oslo' } }, { id: 'toolu_ok' }),
        say.toolUse('mcp__big__tool_7', { count: 1 }, { id: 'toolu_direct' }),
        say.toolUse('mcp_call', { tool: 'mcp__big__nope', arguments: {} }, { id: 'toolu_unknown' }),
        say.text('Done.'),
      );
      const run = await cli(['-p', 'What is the weather in Oslo?']);
      assert.equal(run.code, 0, run.stderr);
      const requests = fake.requests();
      assert.equal(requests.length, 6);
      const names = toolNames(requests[0]!);
      assert.ok(names.includes('mcp_search') && names.includes('mcp_call'), names.join(', '));
      assert.ok(!names.some((name) => name.startsWith('mcp__')), 'no MCP tool is offered directly');
      for (const request of requests) assert.deepEqual((request.raw as { tools?: unknown }).tools, (requests[0]!.raw as { tools?: unknown }).tools, 'the tools array never changes');
      const notice = run.events.find((event): event is Extract<AgentEvent, { type: 'mcp_notice' }> => event.type === 'mcp_notice');
      assert.match(said(notice?.message) ?? '', /301 tools would take ~[\d,]+ tokens .*mcp_search/);
      const found = resultText(requests[1]);
      assert.match(found, /"name": "mcp__big__weather_lookup"/);
      assert.match(found, /"input_schema"/);
      assert.match(resultText(requests[2]), /do not match mcp__big__weather_lookup's input schema: .*city/);
      assert.match(resultText(requests[3]), /Sunny in Oslo/);
      assert.match(resultText(requests[4]), /not offered directly in this session: MCP tools are called through mcp_call/);
      assert.match(resultText(requests[5]), /there is no MCP tool "mcp__big__nope"/);
    });

    it('few tools stay direct: 5 tools of the same server under the threshold', async () => {
      fs.writeFileSync(path.join(storage, 'mcp.json'), JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [MANY_TOOLS], env: { MANY_TOOLS: '4' } } } }));
      fake.enqueue(say.text('Hi.'));
      const run = await cli(['-p', 'Hello.']);
      assert.equal(run.code, 0, run.stderr);
      const names = toolNames(fake.requests()[0]!);
      assert.ok(names.includes('mcp__big__weather_lookup') && names.includes('mcp__big__tool_3'), names.join(', '));
      assert.ok(!names.includes('mcp_search'));
    });
  });
}
