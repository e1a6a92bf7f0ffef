/**
 * Two chats at once (issue 31) are two sessions of one store and one workspace, started side by
 * side: one waits for an approval while the other runs a turn to its end. They share no state:
 * each request carries only its own conversation, each transcript only its own messages, each
 * session its own checkpoints, and the waiting one goes on where it stopped once answered.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startAgentSession, type AgentConfig } from '../../src/core/agent/factory';
import type { ApprovalDecision } from '../../src/core/approvals/approval';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { useTempDirs } from '../support/tempDirs';
import { waitFor } from '../support/waitFor';

describe('two sessions at once share no state (issue 31)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    workspace = temp.make('evergreen-two-ws-');
    storage = temp.make('evergreen-two-store-');
  });
  afterEach(async () => {
    await fake.close();
  });

  it('runs one turn to its end while the other waits for its approval, each on its own conversation, transcript and checkpoints', async () => {
    const config: AgentConfig = { provider: 'anthropic', apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', maxOutputTokens: 4096, approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] }, trusted: true, ripgrepPath: undefined, retryBaseDelayMs: 1 };
    // Each conversation gets its own replies, whatever order the two sessions' requests come in.
    fake.setResponder((body) => {
      const conversation = JSON.stringify(body.messages);
      if (conversation.includes('Session B')) return reply.text('B is done.');
      return conversation.includes('tool_result') ? reply.text('A is done.') : reply.toolUse('write_file', { path: 'a.txt', content: 'from A\n' });
    });
    const store = new FileSessionStore(storage);
    let answerA: ((decision: ApprovalDecision) => void) | undefined;
    const a = await startAgentSession({ config, workspaceRoot: workspace, store, approver: { requestApproval: () => new Promise((resolve) => (answerA = resolve)) }, onEvent: () => undefined });
    const approvalsOfB: string[] = [];
    const b = await startAgentSession({ config, workspaceRoot: workspace, store, approver: { requestApproval: async (request) => (approvalsOfB.push(request.kind), { approved: false }) }, onEvent: () => undefined });
    try {
      assert.notEqual(a.handle.id, b.handle.id);
      const turnA = a.session.send('Session A: write a.txt');
      await waitFor(() => answerA !== undefined, { what: 'session A to ask for its approval', timeoutMs: 30_000 });

      // B runs a whole turn while A waits, and is asked nothing.
      assert.equal(await b.session.send('Session B: say hello'), 'end_turn');
      assert.deepEqual(approvalsOfB, []);
      assert.equal(a.session.busy, true, 'A stopped waiting when B ran');
      assert.equal(fs.existsSync(path.join(workspace, 'a.txt')), false);

      answerA!({ approved: true });
      assert.equal(await turnA, 'end_turn');
      assert.equal(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'from A\n');

      for (const request of fake.messageRequests()) {
        const sent = JSON.stringify(request.body);
        assert.ok(!(sent.includes('Session A') && sent.includes('Session B')), `a request mixed the two conversations: ${sent.slice(0, 300)}`);
      }
      const transcript = (id: string) => fs.readFileSync(store.transcriptPath(id), 'utf8');
      assert.ok(transcript(a.handle.id).includes('Session A') && !transcript(a.handle.id).includes('Session B'));
      assert.ok(transcript(b.handle.id).includes('Session B') && !transcript(b.handle.id).includes('Session A'));
      assert.equal(a.session.history.length, 4, 'A: its message, the call, the result, the answer');
      assert.equal(b.session.history.length, 2, 'B: its message and the answer');
      assert.ok(a.checkpoints && b.checkpoints && a.checkpoints !== b.checkpoints, 'the sessions share a checkpoint store');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
