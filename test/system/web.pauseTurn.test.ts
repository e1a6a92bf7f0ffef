/**
 * A search-heavy reply the API pauses (`stop_reason: "pause_turn"`): the fake Messages API pauses
 * only where its own tool loop runs and takes the paused reply back, as it was sent, as the turn's
 * continuation (an edited one is a prefill, which Claude 4.6+ refuses); the session sends the
 * paused reply back as the last message and the model finishes the turn.
 */
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../../src/core/agent/events';
import { EXIT } from '../../src/cli/run';
import { useCliFixture } from '../support/cliFixture';
import { reply, startFakeAnthropic, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';

type Blocks = Anthropic.ContentBlockParam[];

const SEARCH_TOOL = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 } as const;
/** A model that refuses a prefill: a final assistant message passes only as a paused turn's continuation. */
const MODEL = 'claude-sonnet-4-6';
const search = (query: string, url: string) => ({ type: 'web_search' as const, query, results: [{ url, title: query }] });

describe('a paused turn (pause_turn)', function () {
  this.timeout(60_000);

  describe('the fake Messages API', () => {
    let fake: FakeAnthropic;
    beforeEach(async () => {
      fake = await startFakeAnthropic();
    });
    afterEach(async () => {
      await fake.close();
    });
    const client = () => new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const ask = (messages: Anthropic.MessageParam[], tools: Anthropic.ToolUnion[] = [SEARCH_TOOL]) => client().messages.create({ model: MODEL, max_tokens: 500, tools, messages });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Compare the three libraries.' };

    it('pauses only a reply whose own tool loop ran: a search declared, no client tool call, a search last', async () => {
      const setupError = async (scripted: Parameters<FakeAnthropic['enqueue']>[0], tools?: Anthropic.ToolUnion[]) => {
        fake.enqueue(scripted);
        const error = await ask([question], tools).then(() => undefined, (caught: unknown) => caught);
        assert.ok(error instanceof Anthropic.InternalServerError, `expected the fake's test-setup 500, got ${String(error)}`);
        return error.message;
      };
      assert.match(await setupError(reply.text('Let me look.', { stop_reason: 'pause_turn' })), /pauses the turn \(pause_turn\) but does not end with a web_search/);
      assert.match(await setupError(reply.text('Let me look.', { stop_reason: 'pause_turn' }), [{ name: 'read_file', input_schema: { type: 'object' } }]), /declared no server tool/);
      assert.match(await setupError(reply.message([{ type: 'tool_use', name: 'read_file', input: {} }, search('a', 'https://a.example/')], { stop_reason: 'pause_turn' }), [SEARCH_TOOL, { name: 'read_file', input_schema: { type: 'object' } }]), /calls a client tool/);
    });

    it('takes the paused reply back as it was sent as the continuation, and refuses it edited, or any other final assistant message, as a prefill', async () => {
      fake.enqueue(reply.message([{ type: 'text', text: 'Searching.' }, search('alpha', 'https://alpha.example/')], { stop_reason: 'pause_turn' }));
      const paused = await ask([question]);
      assert.equal(paused.stop_reason, 'pause_turn');
      assert.equal(paused.usage.server_tool_use?.web_search_requests, 1);
      const content = paused.content as Blocks;

      fake.enqueue(reply.text('Alpha is the smallest.'));
      const continued = await ask([question, { role: 'assistant', content }]);
      assert.equal(continued.stop_reason, 'end_turn');

      const prefill = /This model does not support assistant message prefill/;
      const refused = async (assistant: Blocks) => {
        const error = await ask([question, { role: 'assistant', content: assistant }]).then(() => undefined, (caught: unknown) => caught);
        assert.ok(error instanceof Anthropic.BadRequestError, `expected a 400, got ${String(error)}`);
        return error.message;
      };
      assert.match(await refused([{ type: 'text', text: 'Searching.' }]), prefill, 'a part of it is no continuation');
      assert.match(await refused([...content, { type: 'text', text: 'And I add this.' }]), prefill, 'nor is it with text added');
      assert.match(await refused([{ type: 'text', text: 'Searching, I said.' }, ...content.slice(1)]), prefill, 'nor edited');
    });
  });

  describe('the session', () => {
    const cli = useCliFixture('anthropic', { args: ['--no-sandbox', '--model', MODEL, '--web-search', '--output-format', 'stream-json'] });

    it('sends the paused reply back as the last message, exactly, until the model finishes the turn; the next turn sends the searches as notes', async () => {
      const paused = cli().fake;
      paused.enqueue(
        reply.message([{ type: 'text', text: 'Comparing them.' }, search('alpha size', 'https://alpha.example/')], { stop_reason: 'pause_turn' }),
        reply.message([search('beta size', 'https://beta.example/')], { stop_reason: 'pause_turn' }),
        reply.message([search('gamma size', 'https://gamma.example/'), { type: 'text', text: 'Alpha is the smallest.', citations: [{ url: 'https://alpha.example/', title: 'alpha size', cited_text: 'tiny' }] }]),
        reply.text('You are welcome.'),
      );
      const run = await cli().run(['-p', 'Compare the three libraries.', '-p', 'Thanks.']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const requests = paused.messageRequests();
      assert.ok(requests.every((request) => request.reply?.status === 200), JSON.stringify(requests.map((request) => request.reply?.body ?? request.reply?.status)));
      const bodies = requests.map((request) => request.body as MessagesRequestBody);
      assert.equal(bodies.length, 4, 'one request per paused reply, its continuation, and the second turn');
      const replies = requests.map((request) => (request.reply?.events ?? []).flatMap((event) => {
        const data = event.data as Anthropic.RawMessageStreamEvent;
        return data.type === 'content_block_start' ? [data.content_block.type] : [];
      }));
      assert.deepEqual(replies.slice(0, 3), [['text', 'server_tool_use', 'web_search_tool_result'], ['server_tool_use', 'web_search_tool_result'], ['server_tool_use', 'web_search_tool_result', 'text']]);
      // The continuation: no user message added, the reply so far as one assistant message, last.
      assert.deepEqual(bodies[1]!.messages.map((message) => message.role), ['user', 'assistant']);
      assert.deepEqual(bodies[2]!.messages.map((message) => message.role), ['user', 'assistant']);
      const typesOf = (message: Anthropic.MessageParam | undefined) => (message?.content as Blocks).map((block) => block.type);
      assert.deepEqual(typesOf(bodies[2]!.messages[1]), ['text', 'server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result']);
      // After the turn the searches are notes, the paused parts and the last one alike.
      const later = bodies[3]!.messages[1]!.content as Blocks;
      const notes = later.filter((block): block is Anthropic.TextBlockParam => block.type === 'text' && block.text.startsWith('[Web search'));
      assert.deepEqual(notes.map((note) => /"(\w+) size"/.exec(note.text)?.[1]), ['alpha', 'beta', 'gamma']);
      const finished = run.events.filter((event): event is Extract<AgentEvent, { type: 'turn_finished' }> => event.type === 'turn_finished');
      assert.deepEqual(finished.map((event) => event.stopReason), ['end_turn', 'end_turn']);
      const usage = run.events.filter((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage');
      assert.deepEqual(usage.map((event) => event.usage.webSearchRequests ?? 0), [1, 1, 1, 0], 'each search counted once');
    });
  });
});
