/**
 * The panel's requests and the host's replies (protocol.ts `WebviewRequests`, the host's schemas
 * and answers in extension/webviewRequests.ts, the panel's side in webview/hostRequests.ts): every
 * request kind is checked, and gets exactly one reply, a typed value or a typed error; a request
 * the host refuses is answered too; the panel's bundle carries no zod.
 */
import assert from 'node:assert/strict';
import { ActionableError } from '../../src/core/model/errorActions';
import { ModelError } from '../../src/core/model/errors';
import { answerWebviewRequest, handleWebviewRequest, parseWebviewMessage, refusedReply, requestIdOf, type WebviewRequestHandlers } from '../../src/extension/webviewRequests';
import type { WebviewReply, WebviewRequest, WebviewRequestName, WebviewRequests, WebviewToHost } from '../../src/protocol';
import { HostRequests } from '../../src/webview/hostRequests';

/** One well-formed request of every kind, as the panel sends it (without its id). */
const GOOD: { [Name in WebviewRequestName]: WebviewRequests[Name][0] } = {
  ready: {},
  sendMessage: { text: 'hi', attachments: [{ kind: 'file', path: 'a.ts', fromLine: 1, toLine: 2 }, { kind: 'folder', path: 'src' }, { kind: 'problems' }, { kind: 'image', name: 'shot.png', data: 'iVBORw0KGgo=' }] },
  attachmentQuery: { query: 'src/ap' },
  commandQuery: { query: 'rev' },
  approvalDecision: { toolUseId: 'toolu_1', approved: true },
  runCommand: { command: 'compactConversation' },
  openTranscriptAt: { compactionIndex: 0 },
  openSubagentTranscript: { childId: '20261123-1337-abc123' },
  openLink: { href: 'https://example.com' },
  openSavedOutput: { file: '/s/tool-results/a.txt' },
  restoreCheckpoint: { checkpoint: 1 },
  editMessage: { checkpoint: 2 },
  setMode: { mode: 'plan' },
  planDecision: { toolUseId: 'toolu_plan', decision: 'keep_planning', note: 'Cover the migration too.' },
};
const NAMES = Object.keys(GOOD) as WebviewRequestName[];

/** Each kind with a field of the wrong shape (the host refuses the whole message). */
const BAD: { [Name in WebviewRequestName]: Array<Record<string, unknown>> } = {
  ready: [],
  sendMessage: [{ text: 5 }, { text: 'hi', attachments: [{ kind: 'file', path: 'a', fromLine: 3 }] }, { text: 'hi', attachments: [{ kind: 'image', name: 'a.png', data: 'x'.repeat(33 * 1024 * 1024) }] }],
  attachmentQuery: [{ query: 'x'.repeat(5_000) }, {}],
  commandQuery: [{ query: 7 }, {}],
  approvalDecision: [{ toolUseId: 'toolu_1', approved: 'yes' }],
  runCommand: [{ command: 'workbench.action.quit' }],
  openTranscriptAt: [{ compactionIndex: Number.MAX_SAFE_INTEGER + 2 }],
  openSubagentTranscript: [{ childId: '../other' }],
  openLink: [{ href: '' }],
  openSavedOutput: [{ file: 42 }],
  restoreCheckpoint: [{ checkpoint: 0 }],
  editMessage: [{ checkpoint: 1.5 }],
  setMode: [{ mode: '' }, { mode: 'x'.repeat(201) }, {}],
  planDecision: [{ toolUseId: 'toolu_plan', decision: 'build it' }, { toolUseId: '../x', decision: 'build' }, { toolUseId: 'toolu_plan', decision: 'build', note: 'x'.repeat(100_001) }],
};

describe('webview requests', () => {
  describe("the host's schemas", () => {
    it('accept one request of every kind as it was sent, id included, and drop fields no request has', () => {
      for (const name of NAMES) {
        const message = { type: name, requestId: 7, ...GOOD[name] };
        assert.deepEqual(parseWebviewMessage({ ...message, extra: 'dropped' }), message, name);
      }
    });

    it('refuse a message without a request id, with an unknown type, or with a field of the wrong shape', () => {
      for (const id of [undefined, -1, 1.5, '7']) assert.equal(parseWebviewMessage({ type: 'ready', requestId: id }), undefined, String(id));
      assert.equal(parseWebviewMessage({ type: 'response', requestId: 1 }), undefined);
      assert.equal(parseWebviewMessage({ type: 'toString', requestId: 1 }), undefined);
      for (const name of NAMES) for (const bad of BAD[name]) assert.equal(parseWebviewMessage({ type: name, requestId: 1, ...bad }), undefined, `${name} ${JSON.stringify(bad).slice(0, 60)}`);
    });

    it('find the id of a refused message, so its error reply reaches the panel', () => {
      assert.equal(requestIdOf({ type: 'runCommand', requestId: 4, command: 'rm -rf' }), 4);
      assert.equal(requestIdOf({ type: 'runCommand', command: 'x' }), undefined);
      assert.equal(requestIdOf('ready'), undefined);
      const reply = refusedReply(4);
      assert.ok(!reply.ok);
      assert.equal(reply.requestId, 4);
      assert.match(reply.error, /could not read this request from the chat panel.*Reload the window/);
    });
  });

  describe("the host's answers", () => {
    const answer = async (message: WebviewToHost, handle: (request: WebviewRequest) => Promise<unknown>): Promise<WebviewReply[]> => {
      const replies: WebviewReply[] = [];
      await answerWebviewRequest(message, handle, (reply) => replies.push(reply));
      return replies;
    };

    it("route each request to its kind's handler", async () => {
      const seen: string[] = [];
      const handlers = Object.fromEntries(NAMES.map((name) => [name, async (request: WebviewRequest) => void seen.push(`${name}:${request.type}`)])) as unknown as WebviewRequestHandlers;
      for (const name of NAMES) await handleWebviewRequest(handlers, { type: name, ...GOOD[name] } as WebviewRequest);
      assert.deepEqual(seen, NAMES.map((name) => `${name}:${name}`));
    });

    it("reply once with the handler's value", async () => {
      const options = [{ kind: 'file' as const, path: 'src/app.ts', tokens: 10 }];
      assert.deepEqual(await answer({ type: 'attachmentQuery', requestId: 3, query: 'app' }, async () => options), [{ type: 'reply', requestId: 3, ok: true, value: options }]);
    });

    it("reply with the error of a failed turn and the core's next steps for it", async () => {
      const replies = await answer({ type: 'sendMessage', requestId: 5, text: 'hi' }, async () => {
        throw new ModelError('no_api_key', 'No Anthropic API key is set.', { kind: 'noApiKey', provider: 'anthropic' });
      });
      assert.equal(replies.length, 1);
      const reply = replies[0]!;
      assert.ok(!reply.ok);
      assert.equal(reply.requestId, 5);
      assert.match(reply.error, /^No Anthropic API key is set\. Run "Evergreen: Set API Key"/);
      assert.deepEqual(reply.actions, ['setApiKey']);
      const unexpected = (await answer({ type: 'sendMessage', requestId: 6, text: 'hi' }, () => Promise.reject(new Error('boom'))))[0]!;
      assert.ok(!unexpected.ok);
      assert.deepEqual(unexpected.actions, ['retry', 'newChat']);
    });

    it('reply to any other failed request with its message alone (a Retry would send the conversation again)', async () => {
      const replies = await answer({ type: 'runCommand', requestId: 8, command: 'openFolder' }, () => Promise.reject(new ActionableError('no_workspace', 'Open a folder first.')));
      assert.deepEqual(replies, [{ type: 'reply', requestId: 8, ok: false, error: 'Open a folder first.' }]);
    });
  });

  describe("the panel's side", () => {
    it('numbers its requests, and settles each with the reply of its id, in whatever order they come', async () => {
      const sent: WebviewToHost[] = [];
      const host = new HostRequests((message) => sent.push(message));
      const query = host.request('attachmentQuery', { query: 'a' });
      const command = host.request('runCommand', { command: 'cancel' });
      assert.deepEqual(sent, [
        { type: 'attachmentQuery', requestId: 1, query: 'a' },
        { type: 'runCommand', requestId: 2, command: 'cancel' },
      ]);
      host.settle({ type: 'reply', requestId: 2, ok: false, error: 'no' });
      host.settle({ type: 'reply', requestId: 1, ok: true, value: [{ kind: 'folder', path: 'a' }] });
      const [queried, commanded] = await Promise.all([query, command]);
      assert.ok(queried.ok);
      assert.deepEqual(queried.value, [{ kind: 'folder', path: 'a' }]);
      assert.deepEqual(commanded, { type: 'reply', requestId: 2, ok: false, error: 'no' });
      assert.equal(host.waiting, 0);
    });

    it('ignores a reply to no request of its own (a second one, or one from before a reload)', () => {
      const host = new HostRequests(() => undefined);
      void host.request('ready', {});
      host.settle({ type: 'reply', requestId: 99, ok: true, value: undefined });
      assert.equal(host.waiting, 1);
      host.settle({ type: 'reply', requestId: 1, ok: true, value: undefined });
      host.settle({ type: 'reply', requestId: 1, ok: true, value: undefined });
      assert.equal(host.waiting, 0);
    });
  });

  it('every request kind the panel sends gets exactly one reply, through both sides: a value, or an error', async () => {
    const failing = new Set<WebviewRequestName>(['openLink', 'restoreCheckpoint']);
    const handle = async (request: WebviewRequest): Promise<unknown> => {
      if (failing.has(request.type)) throw new Error(`${request.type} failed`);
      return request.type === 'attachmentQuery' ? [] : undefined;
    };
    const delivered: WebviewReply[] = [];
    // The wire: what the panel posts is parsed and answered by the host; each reply goes back to the panel.
    const host: HostRequests = new HostRequests((message) => {
      const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
      assert.ok(parsed, `the host refused ${message.type}`);
      void answerWebviewRequest(parsed, handle, (reply) => {
        delivered.push(reply);
        host.settle(reply);
      });
    });
    const replies = await Promise.all(NAMES.map((name) => host.request(name, GOOD[name])));
    assert.equal(delivered.length, NAMES.length);
    for (const [index, name] of NAMES.entries()) {
      const reply = replies[index]!;
      assert.equal(reply.ok, !failing.has(name), name);
      if (!reply.ok) assert.equal(reply.error, `${name} failed`);
    }
    assert.equal(host.waiting, 0);
  });
});
