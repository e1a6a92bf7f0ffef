// Issue 7 items 6 and 9 that live in the session rather than in a tool: a reply with repeated or
// malformed tool_use ids, and a session resumed from another folder.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../src/core/agent/events';
import { startAgentSession } from '../../../src/core/agent/factory';
import { lineLogger } from '../../../src/core/logger';
import { FileSessionStore } from '../../../src/core/storage/sessionStore';
import { runCliCaptured } from '../../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { useTempDirs } from '../../support/tempDirs';

const MODEL = 'claude-sonnet-4-6';

describe('security: the session survives a hostile reply and a moved workspace', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let fake: FakeAnthropic;
  let base: string;
  let storage: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
    base = temp.make('evergreen-sec-session-');
    storage = path.join(base, 'storage');
    for (const dir of ['a', 'b', 'storage']) fs.mkdirSync(path.join(base, dir));
    fs.writeFileSync(path.join(base, 'a', 'x.txt'), 'x\n');
  });
  afterEach(async () => {
    await fake.close();
  });

  const cli = (workspace: string, ...args: string[]) =>
    runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--output-format', 'stream-json', '--yes', ...args],
      { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
      workspace,
    );

  it('tool_use ids repeated within a reply, across replies, or not matching the API pattern keep the session usable', async () => {
    fake.enqueue(
      reply.message([
        { type: 'tool_use', id: 'toolu_same', name: 'read_file', input: { path: 'x.txt' } },
        { type: 'tool_use', id: 'toolu_same', name: 'list_files', input: {} },
        { type: 'tool_use', id: 'not a valid id!', name: 'list_files', input: {} },
      ]),
      reply.toolUse('read_file', { path: 'x.txt' }, { id: 'toolu_same' }),
      reply.text('First prompt done.'),
      reply.text('Second prompt done.'),
    );
    const run = await cli(path.join(base, 'a'), '-p', 'look around', '-p', 'and again');
    assert.equal(run.code, 0, run.stderr);
    // The fake validates like the real API: every request after the bad replies was accepted.
    const requests = fake.messageRequests();
    assert.equal(requests.length, 4);
    const texts = run.events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
    assert.match(texts, /Second prompt done\./);
    const ids = run.events.flatMap((event) => (event.type === 'tool_call_started' ? [event.toolUseId] : []));
    assert.equal(ids.length, 4);
    assert.equal(new Set(ids).size, 4, `ids must be unique, got ${ids.join(', ')}`);
    const finished = run.events.filter((event) => event.type === 'tool_call_finished');
    assert.equal(finished.length, 4);
    for (const id of ids) assert.match(id, /^[a-zA-Z0-9_-]+$/);
    for (const event of finished) assert.ok(event.type === 'tool_call_finished' && !event.isError, JSON.stringify(event));
  });

  it('a model that calls tools forever is stopped at the round cap, with a valid history and a way to go on', async () => {
    const workspace = path.join(base, 'a');
    const events: AgentEvent[] = [];
    const started = await startAgentSession({
      config: { apiKey: fake.apiKey, baseURL: fake.url, model: MODEL, maxOutputTokens: 4096, approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] }, trusted: true, ripgrepPath: undefined, maxToolRoundsPerTurn: 3 },
      workspaceRoot: workspace,
      store: new FileSessionStore(storage),
      approver: { requestApproval: async () => ({ approved: false }) },
      onEvent: (event) => events.push(event),
    });
    try {
      fake.setResponder(() => reply.toolUse('list_files', {}));
      assert.equal(await started.session.send('Look around forever.'), 'error');
      assert.equal(fake.messageRequests().length, 4, 'three rounds plus the one that hit the cap');
      const error = events.find((event) => event.type === 'error');
      assert.ok(error?.type === 'error');
      assert.equal(error.kind, 'tool_round_limit');
      assert.deepEqual(error.actions, ['retry', 'newChat']);
      // Every tool_use of the capped reply is answered: the next request is valid.
      fake.setResponder(() => reply.text('Stopping here.'));
      assert.equal(await started.session.send('Stop and summarize.'), 'end_turn');
      assert.equal(fake.messageRequests().at(-1)?.reply?.status, 200);
    } finally {
      started.handle.close();
    }
  });

  it('the log shows requests and usage, never message bodies or the key', async () => {
    const workspace = path.join(base, 'a');
    const lines: string[] = [];
    const started = await startAgentSession({
      config: { apiKey: fake.apiKey, baseURL: fake.url, model: MODEL, maxOutputTokens: 4096, approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] }, trusted: true, ripgrepPath: undefined },
      workspaceRoot: workspace,
      store: new FileSessionStore(storage),
      approver: { requestApproval: async () => ({ approved: false }) },
      onEvent: () => undefined,
      logger: lineLogger((line) => lines.push(line)),
    });
    try {
      fake.enqueue(reply.toolUse('read_file', { path: 'x.txt' }), reply.text('The file says SECRET-REPLY-MARKER.'));
      fs.writeFileSync(path.join(workspace, 'x.txt'), 'SECRET-FILE-MARKER\n');
      assert.equal(await started.session.send('Read x.txt, SECRET-PROMPT-MARKER.'), 'end_turn');
      const log = lines.join('\n');
      assert.match(log, /request 0 of turn-1-\w+: claude-sonnet-4-6, 1 messages/);
      assert.match(log, /request 1 of turn-1-\w+: .*3 messages/);
      assert.match(log, /usage \(turn-1-\w+\): \d+ in, \d+ cache read/);
      for (const secret of ['SECRET-FILE-MARKER', 'SECRET-REPLY-MARKER', 'SECRET-PROMPT-MARKER', fake.apiKey]) assert.ok(!log.includes(secret), `the log holds ${secret}`);
    } finally {
      started.handle.close();
    }
  });

  it('resuming under another --workspace tells the model the new root, not the old one', async () => {
    fake.enqueue(reply.text('Started in a.'), reply.text('Now in b.'));
    const first = await cli(path.join(base, 'a'), '-p', 'hello');
    assert.equal(first.code, 0, first.stderr);
    const started = first.events.find((event) => event.type === 'session_started');
    assert.ok(started && started.type === 'session_started');
    const second = await cli(path.join(base, 'b'), '--resume', started.sessionId, '-p', 'where are you?');
    assert.equal(second.code, 0, second.stderr);
    const systemOf = (index: number): string => JSON.stringify((fake.messageRequests()[index]?.body as { system?: unknown } | undefined)?.system);
    assert.match(systemOf(0), new RegExp(`Workspace root: ${path.join(base, 'a')}`));
    assert.match(systemOf(1), new RegExp(`Workspace root: ${path.join(base, 'b')}`));
    assert.doesNotMatch(systemOf(1), new RegExp(`Workspace root: ${path.join(base, 'a')}\\b`));
  });
});
