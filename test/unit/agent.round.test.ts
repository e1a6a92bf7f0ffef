// One round of tool calls (agent/round.ts) and the effects of a call (agent/effects.ts), with the
// real registry and handlers and a host that records: no model, no process, no clock.
import assert from 'node:assert/strict';
import { dispatchEffects, sessionEffectHandlers, type EffectHandlers, type EffectSite } from '../../src/core/agent/effects';
import type { AgentEvent } from '../../src/core/agent/events';
import { CANCELLED_BEFORE_RUN, MAX_TOKENS_TOOL_RESULT, ROUND_LIMIT_TOOL_RESULT, roundCalls, ToolRound, type RoundHost } from '../../src/core/agent/round';
import { silentLogger } from '../../src/core/logger';
import type { ContentBlock, ContentBlockParam } from '../../src/core/model/messages';
import { toParams } from '../../src/core/agent/responseContent';
import type { RecalledSlice } from '../../src/core/tools/recallTypes';
import { createToolRegistry } from '../../src/core/tools/registry';
import { defineTool, MAX_TOOL_INPUT_DEPTH } from '../../src/core/tools/toolInput';
import type { ToolDefinition, ToolEffect } from '../../src/core/tools/types';
import * as z from '../../src/core/zod';
import { verbatim } from '../../src/core/texts/userText';

type Logged = { at: 'event'; type: string; toolUseId?: string } | { at: 'effect'; kind: ToolEffect['kind']; toolUseId: string; recorded: string | undefined } | { at: 'tool'; what: string };

/** A tool that reports and returns the effects it is given, and logs where it is. */
function effectTool(log: Logged[]): ToolDefinition<unknown> {
  return defineTool({
    name: 'effects',
    description: 'Test tool.',
    kind: 'meta',
    input: z.object({ folder: z.string() }),
    headline: (input) => verbatim(input.folder),
    run: async (input, ctx) => {
      log.push({ at: 'tool', what: 'before report' });
      await ctx.report?.({ kind: 'file_will_change', path: `/w/${input.folder}/f.txt`, prior: Buffer.from('old') });
      log.push({ at: 'tool', what: 'after report' });
      return { content: `read ${input.folder}`, effects: [{ kind: 'folders_read', folders: [`/w/${input.folder}`] }, { kind: 'todos_changed', items: [{ id: '1', text: 'x', status: 'done' }] }] };
    },
  }) as ToolDefinition<unknown>;
}

/** Calls of this tool in a row run at once: each waits a few turns of the event loop and notes how many ran together. */
function parallelTool(running: { now: number; most: number }): ToolDefinition<unknown> {
  return defineTool({
    name: 'together',
    description: 'Test tool.',
    kind: 'meta',
    parallel: true,
    input: z.object({ n: z.int() }),
    headline: (input) => verbatim(String(input.n)),
    run: async (input) => {
      running.now++;
      running.most = Math.max(running.most, running.now);
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      running.now--;
      return { content: `done ${input.n}` };
    },
  }) as ToolDefinition<unknown>;
}

interface Rig {
  host: RoundHost;
  log: Logged[];
  events: AgentEvent[];
  handled: EffectSite[];
  running: { now: number; most: number };
}

function rig(overrides: Partial<RoundHost> = {}): Rig {
  const log: Logged[] = [];
  const events: AgentEvent[] = [];
  const handled: EffectSite[] = [];
  const running = { now: 0, most: 0 };
  const tools = createToolRegistry({ trusted: true, externalTools: [effectTool(log), parallelTool(running)] });
  const real = sessionEffectHandlers({ emit: (event) => events.push(event), pendingRecalls: new Map(), recordWrite: undefined, logger: silentLogger });
  const logged = <K extends ToolEffect['kind']>(kind: K) => (effect: Extract<ToolEffect, { kind: K }>, site: EffectSite) => {
    log.push({ at: 'effect', kind, toolUseId: site.toolUseId, recorded: site.recorded });
    handled.push(site);
    return (real[kind] as (effect: Extract<ToolEffect, { kind: K }>, site: EffectSite) => void | Promise<void>)(effect, site);
  };
  const effects: EffectHandlers = { todos_changed: logged('todos_changed'), folders_read: logged('folders_read'), recalled: logged('recalled'), file_will_change: logged('file_will_change'), plan_proposed: logged('plan_proposed') };
  const host: RoundHost = {
    tools,
    // Tier 0 as a visible change, so a handler can be shown to see the recorded text.
    recordResult: async ({ content }) => `${content} [recorded]`,
    recordCard: () => undefined,
    emit: (event) => {
      events.push(event);
      log.push({ at: 'event', type: event.type, ...('toolUseId' in event ? { toolUseId: event.toolUseId } : {}) });
    },
    toolContext: (_turnId, toolUseId, signal) => ({ workspace: undefined as never, toolUseId, signal, onProgress: () => undefined, approve: async () => ({ approved: true }) }),
    effects,
    notesAfter: async (round) => (round.foldersRead.length > 0 ? [{ type: 'text', text: `notes for ${round.foldersRead.join(', ')}` }] : []),
    ...overrides,
  };
  return { host, log, events, handled, running };
}

const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });
const calls = (...uses: ReturnType<typeof toolUse>[]) => uses.map((use) => ({ toolUse: use, refusal: undefined }));
const resultText = (block: ContentBlockParam | undefined): unknown => (block?.type === 'tool_result' ? block.content : block?.type === 'text' ? block.text : undefined);

describe('a round of tool calls', () => {
  it("dispatches a reported effect while the tool waits, and the result's effects after it finished, seeing the recorded text", async () => {
    const r = rig();
    const round = new ToolRound(r.host, { turnId: 't1', calls: calls(toolUse('toolu_1', 'effects', { folder: 'src' })), signal: new AbortController().signal });
    const content = await round.run();
    assert.deepEqual(
      r.log.map((entry) => (entry.at === 'event' ? entry.type : entry.at === 'effect' ? `${entry.kind} ${entry.recorded ?? '(running)'}` : entry.what)),
      ['tool_call_started', 'before report', 'file_will_change (running)', 'after report', 'tool_call_finished', 'folders_read read src [recorded]', 'todos_changed read src [recorded]'],
    );
    assert.deepEqual(round.foldersRead, ['/w/src']);
    assert.deepEqual(content.map(resultText), ['read src [recorded]', 'notes for /w/src']);
    assert.equal(round.calls[0]!.result?.content, 'read src [recorded]', 'the round keeps each call as recorded');
    const todos = r.events.find((event) => event.type === 'todos');
    assert.ok(todos?.type === 'todos' && todos.turnId === 't1' && todos.items[0]?.status === 'done');
  });

  it('runs calls of a parallel tool in a row at once, every other call alone, and keeps the order of the results', async () => {
    const r = rig();
    const round = new ToolRound(r.host, {
      turnId: 't1',
      calls: calls(toolUse('toolu_a', 'together', { n: 1 }), toolUse('toolu_b', 'together', { n: 2 }), toolUse('toolu_c', 'effects', { folder: 'x' }), toolUse('toolu_d', 'together', { n: 3 })),
      signal: new AbortController().signal,
    });
    const content = await round.run();
    assert.equal(r.running.most, 2, 'the two calls in a row ran together, the last one alone');
    assert.deepEqual(content.map((block) => (block.type === 'tool_result' ? block.tool_use_id : block.type)), ['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d', 'text']);
  });

  it('answers every call without running it when the reply was cut off, the turn hit its round limit, or it was cancelled', async () => {
    for (const [stop, text] of [
      ['max_tokens', MAX_TOKENS_TOOL_RESULT],
      ['round_limit', ROUND_LIMIT_TOOL_RESULT],
    ] as const) {
      const r = rig();
      const content = await new ToolRound(r.host, { turnId: 't', calls: calls(toolUse('toolu_1', 'effects', { folder: 'a' })), signal: new AbortController().signal, stop }).run();
      assert.deepEqual(content, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text, is_error: true }]);
      assert.deepEqual(r.log, [], 'nothing started, nothing ran');
    }
    const r = rig();
    const cancelled = new AbortController();
    cancelled.abort();
    const content = await new ToolRound(r.host, { turnId: 't', calls: calls(toolUse('toolu_1', 'effects', { folder: 'a' })), signal: cancelled.signal }).run();
    assert.deepEqual(content, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: CANCELLED_BEFORE_RUN, is_error: true }], 'no notes after a cancel');
  });

  it("answers a refused call with its refusal: shown as started and finished, the tool never runs", async () => {
    const r = rig();
    const round = new ToolRound(r.host, { turnId: 't', calls: [{ toolUse: toolUse('toolu_1', 'effects', {}), refusal: 'Not run: bad JSON.' }], signal: new AbortController().signal });
    assert.deepEqual(await round.run(), [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Not run: bad JSON.', is_error: true }]);
    assert.deepEqual(r.log.map((entry) => (entry.at === 'event' ? entry.type : entry.at)), ['tool_call_started', 'tool_call_finished']);
  });

  it('pairs each call of the response with its refusal, ids rewritten or not, and records an input nested too deeply as {}', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < MAX_TOOL_INPUT_DEPTH + 1; level++) deep = { deep };
    const response: ContentBlock[] = [
      { type: 'text', text: 'Three calls.' },
      { type: 'tool_use', id: 'toolu_same', name: 'effects', input: { folder: 'a' } },
      { type: 'tool_use', id: 'toolu_same', name: 'effects', input: {} },
      { type: 'tool_use', id: 'bad id!', name: 'effects', input: deep as Record<string, unknown> },
    ];
    const content = toParams(response, new Set());
    const paired = roundCalls({ content: response, invalidToolInputs: new Map([[2, { text: '{"folder": ', problem: 'Unexpected end' }]]) }, content);
    assert.deepEqual(paired.map((call) => call.toolUse.id), ['toolu_same', 'toolu_same_2', 'toolu_evergreen_3']);
    assert.equal(paired[0]!.refusal, undefined);
    assert.match(paired[1]!.refusal ?? '', /^Not run: the input of this tool call was not valid JSON \(Unexpected end\)/);
    assert.match(paired[2]!.refusal ?? '', /^Not run: the input nests objects or arrays more than 64 levels deep/);
    assert.deepEqual(paired[2]!.toolUse.input, {}, 'the recorded call carries {} (recording the input would overflow the stack)');
    assert.strictEqual(paired[2]!.toolUse, content[3], 'the very block the history records');
  });
});

describe("a call's effects", () => {
  const site = (recorded: string | undefined, foldersRead: string[] = []): EffectSite => ({ turnId: 't', toolUseId: 'toolu_r', recorded, foldersRead, endTurn: () => undefined });
  const slice: RecalledSlice = { source: { kind: 'message', toolUseId: 'toolu_src' }, start: 0, end: 5, head: '', tail: '' };

  it('a recall is kept as a reference only while the recorded result is exactly its slice', async () => {
    const pendingRecalls = new Map<string, RecalledSlice>();
    const handlers = sessionEffectHandlers({ emit: () => undefined, pendingRecalls, recordWrite: undefined, logger: silentLogger });
    await dispatchEffects(handlers, [{ kind: 'recalled', slice, content: 'hello' }], site('hello [cut by tier 0]'));
    assert.equal(pendingRecalls.size, 0);
    await dispatchEffects(handlers, [{ kind: 'recalled', slice, content: 'hello' }], site(undefined));
    assert.equal(pendingRecalls.size, 0, 'reported while running: no recorded text to compare yet');
    await dispatchEffects(handlers, [{ kind: 'recalled', slice, content: 'hello' }], site('hello'));
    assert.deepEqual(pendingRecalls.get('toolu_r'), slice);
  });

  it("a file about to change reaches the checkpoint in order, and a failing record never stops the write (it is logged)", async () => {
    const recorded: string[] = [];
    const errors: string[] = [];
    const handlers = sessionEffectHandlers({
      emit: () => undefined,
      pendingRecalls: new Map(),
      recordWrite: async (file, prior) => {
        if (file === '/w/broken') throw new Error('disk full');
        recorded.push(`${file}=${prior?.toString() ?? '(absent)'}`);
      },
      logger: { ...silentLogger, error: (message) => void errors.push(message) },
    });
    await dispatchEffects(handlers, [{ kind: 'file_will_change', path: '/w/a', prior: Buffer.from('one') }, { kind: 'file_will_change', path: '/w/broken', prior: undefined }, { kind: 'file_will_change', path: '/w/b', prior: undefined }], site(undefined));
    assert.deepEqual(recorded, ['/w/a=one', '/w/b=(absent)']);
    assert.deepEqual(errors, ["could not keep /w/broken's content for its checkpoint"]);
  });

  it("folders read gather in the round's list; a task list becomes the turn's todos event", async () => {
    const events: AgentEvent[] = [];
    const handlers = sessionEffectHandlers({ emit: (event) => events.push(event), pendingRecalls: new Map(), recordWrite: undefined, logger: silentLogger });
    const folders: string[] = ['/w/a'];
    await dispatchEffects(handlers, [{ kind: 'folders_read', folders: ['/w/b', '/w/c'] }, { kind: 'todos_changed', items: [] }], site('ok', folders));
    assert.deepEqual(folders, ['/w/a', '/w/b', '/w/c']);
    assert.deepEqual(events, [{ type: 'todos', turnId: 't', items: [] }]);
  });
});
