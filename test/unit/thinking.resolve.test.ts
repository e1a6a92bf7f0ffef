/**
 * Extended thinking (issue 21), the pure parts: the setting's parsing (settings and CLI alike), the
 * facts table's word on which model thinks how, the resolution into a request that fits the
 * output reserve, the budget -> effort mapping, and the live view's rule for thinking blocks.
 */
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../src/cli/args';
import { currentTurnStart, sendableThinking, THINKING_ONLY_TEXT, buildLiveView } from '../../src/core/context/liveView';
import type { MessageParam } from '../../src/core/model/messages';
import { thinkingFactsFor } from '../../src/core/model/models';
import { effortForBudget, fitThinking, parseThinkingSetting, resolveThinking, THINKING_DEFAULTS } from '../../src/core/model/thinking';
import { foreignThinkingNotice, opensWithThinking, withoutForeignThinking } from '../../src/core/agent/thinkingTurn';
import { parseSettings } from '../../src/extension/settingsValues';
import { configureWords } from '../../src/frontends/words';
import { said } from '../support/said';

const signed = (text: string) => ({ type: 'thinking' as const, thinking: text, signature: `sig-${text}` });

describe('thinking: the setting', () => {
  it('takes off, auto and whole budgets from 1024, as text or number; refuses the rest naming what is accepted', () => {
    assert.deepEqual(parseThinkingSetting('off'), { setting: 'off' });
    assert.deepEqual(parseThinkingSetting('auto'), { setting: 'auto' });
    assert.deepEqual(parseThinkingSetting('8000'), { setting: 8000 });
    assert.deepEqual(parseThinkingSetting(1024), { setting: 1024 });
    for (const bad of ['on', '', '8k', '1e4', '-2000', 2000.5, true, null, {}]) {
      const parsed = parseThinkingSetting(bad);
      assert.ok('problem' in parsed, `${JSON.stringify(bad)} was accepted`);
      assert.match(parsed.problem, /"off", "auto" or a budget/);
    }
    const low = parseThinkingSetting('500');
    assert.ok('problem' in low);
    assert.match(low.problem, /500 tokens is below the 1024/);
  });

  it('is read from the user settings; a bad value is named and thinking is off', () => {
    const source = (value: unknown) => ({ get: () => undefined, userValue: (key: string) => (key === 'thinking' ? value : undefined) });
    assert.equal(parseSettings(source(undefined)).thinking, 'off');
    assert.equal(parseSettings(source('auto')).thinking, 'auto');
    assert.equal(parseSettings(source(12000)).thinking, 12000);
    const bad = parseSettings(source('lots'));
    assert.equal(bad.thinking, 'off');
    assert.ok(bad.problems.some((problem) => problem.includes('"evergreen.thinking"') && problem.includes('thinking is off')), bad.problems.join('\n'));
  });

  it('--thinking: off by default, auto or N, and a clear usage error for anything else', () => {
    assert.equal(parseCliArgs([], '/w').thinking, 'off');
    assert.equal(parseCliArgs(['--thinking', 'auto'], '/w').thinking, 'auto');
    assert.equal(parseCliArgs(['--thinking', '20000'], '/w').thinking, 20000);
    for (const bad of ['maybe', '100', '']) {
      assert.throws(() => parseCliArgs(['--thinking', bad], '/w'), (error: unknown) => error instanceof UsageError && /^--thinking /.test(error.message) && /"off", "auto" or a budget/.test(error.message));
    }
  });
});

describe('thinking: the facts table', () => {
  it('says which families think and how', () => {
    assert.deepEqual(thinkingFactsFor('anthropic', 'claude-3-7-sonnet-20250219'), { form: 'budget' });
    assert.deepEqual(thinkingFactsFor('anthropic', 'claude-sonnet-4-5-20250929'), { form: 'budget', interleaved: true });
    assert.deepEqual(thinkingFactsFor('anthropic', 'claude-opus-4-1'), { form: 'budget', interleaved: true });
    assert.deepEqual(thinkingFactsFor('anthropic', 'claude-haiku-4-5'), { form: 'budget', interleaved: true });
    // 4.6 and later: the adaptive form (the budget form is deprecated there, refused from 4.7 and on the 5 family).
    for (const model of ['claude-sonnet-4-6', 'claude-opus-4-7', 'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5']) assert.equal(thinkingFactsFor('anthropic', model).form, 'adaptive', model);
    assert.equal(thinkingFactsFor('anthropic', 'claude-3-5-haiku-20241022').form, 'none');
    assert.equal(thinkingFactsFor('anthropic', 'my-gateway-model').form, 'none');
    for (const model of ['o1', 'o3', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini-2025-08-07']) assert.equal(thinkingFactsFor('openai', model).form, 'effort', model);
    for (const model of ['o1-mini', 'gpt-4.1', 'gpt-4o', 'qwen2.5-coder:7b']) assert.equal(thinkingFactsFor('openai', model).form, 'none', model);
  });
});

describe('thinking: resolution', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));
  const context = { provider: 'anthropic' as const, model: 'claude-sonnet-4-5', maxOutputTokens: 16_000, outputCap: 40_000 };

  it('off asks nothing and keeps the reply reserve', () => {
    const resolved = resolveThinking('off', context);
    assert.equal(resolved.request, undefined);
    assert.equal(resolved.maxOutputTokens, 16_000);
    assert.equal(resolved.notice, undefined);
  });

  it(`auto is ${THINKING_DEFAULTS.autoBudgetTokens} tokens on a model that thinks, the reserve grown by it; off elsewhere with an info notice`, () => {
    const resolved = resolveThinking('auto', context);
    assert.deepEqual(resolved.request, { budgetTokens: THINKING_DEFAULTS.autoBudgetTokens });
    assert.equal(resolved.maxOutputTokens, 16_000 + THINKING_DEFAULTS.autoBudgetTokens);
    assert.equal(resolved.notice, undefined);
    const none = resolveThinking('auto', { ...context, model: 'claude-3-5-haiku' });
    assert.equal(none.request, undefined);
    assert.equal(none.maxOutputTokens, 16_000);
    assert.equal(none.notice?.level, 'info');
  });

  it('a budget on a model without thinking: no request, a warning with the next step', () => {
    const resolved = resolveThinking(10_000, { ...context, provider: 'openai', model: 'gpt-4.1' });
    assert.equal(resolved.request, undefined);
    assert.equal(resolved.notice?.level, 'warning');
    assert.equal(said(resolved.notice!.message), '--thinking asks for 10,000 tokens of thinking, but gpt-4.1 cannot be asked to think (Evergreen\'s model table lists no thinking for it); this session runs without it. Pick a model that thinks (e.g. a Claude 4 or an o-series model) or set it to "off".');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.match(said(resolved.notice!.message), /^"evergreen\.thinking" asks for 10,000 tokens of thinking, but gpt-4\.1 cannot be asked to think/);
  });

  it('a budget too large for the reserve is lowered to leave the reply its floor, and said; one that cannot fit at all turns thinking off', () => {
    const lowered = resolveThinking(60_000, context);
    assert.deepEqual(lowered.request, { budgetTokens: 40_000 - THINKING_DEFAULTS.minReplyTokens });
    assert.equal(lowered.maxOutputTokens, 40_000);
    assert.equal(lowered.notice?.level, 'info');
    assert.equal(said(lowered.notice!.message), 'Thinking uses 35,904 tokens, not 60,000: the reply reserve is at most 20% of the context window; raise --context-window for a larger one.');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.match(said(lowered.notice!.message), /uses 35,904 tokens, not 60,000.*raise "evergreen\.contextWindow" for a larger one\.$/);
    configureWords({ locale: 'en', voice: 'cli' });
    const tiny = resolveThinking(2048, { ...context, maxOutputTokens: 4096, outputCap: 4096 });
    assert.equal(tiny.request, undefined);
    assert.equal(tiny.maxOutputTokens, 4096);
    assert.equal(said(tiny.notice!.message), `Thinking is off: with 4,096 tokens for the reply and its thinking, no budget of ${THINKING_DEFAULTS.minBudgetTokens} tokens fits beside a 4,096-token reply; the reply reserve is at most 20% of the context window; raise --context-window for a larger one.`);
  });

  it('a budget lowered by the model\'s own output limit is information that names the limit, never advice to raise the window', () => {
    const limited = { ...context, outputCap: 8_192, modelOutputLimit: 8_192 };
    const lowered = resolveThinking('auto', limited);
    assert.deepEqual(lowered.request, { budgetTokens: 8_192 - THINKING_DEFAULTS.minReplyTokens });
    assert.equal(lowered.notice?.level, 'info');
    assert.equal(said(lowered.notice!.message), 'Thinking uses 4,096 tokens, not 8,000: claude-sonnet-4-5 writes at most 8,192 tokens a reply; a model with a larger output limit has room for more.');
    const off = resolveThinking('auto', { ...limited, outputCap: 4_096, modelOutputLimit: 4_096 });
    assert.equal(off.request, undefined);
    assert.doesNotMatch(said(off.notice!.message), /context-window|contextWindow/);
  });

  it('adaptive and effort models, which are sent an effort and no budget, hear of a lowered budget only when the effort changes', () => {
    for (const [provider, model] of [['anthropic', 'claude-sonnet-5-5'], ['openai', 'gpt-5']] as const) {
      const same = resolveThinking('auto', { ...context, provider, model, outputCap: 8_192, modelOutputLimit: 8_192 });
      assert.deepEqual(same.request, { budgetTokens: 4_096 }, model);
      assert.equal(same.notice, undefined, `${model}: medium effort either way, nothing to say`);
      const lower = resolveThinking(20_000, { ...context, provider, model, outputCap: 8_192, modelOutputLimit: 8_192 });
      assert.equal(lower.notice?.level, 'info', model);
      assert.match(said(lower.notice!.message), /^Thinking effort is medium, not high: /, model);
      assert.doesNotMatch(said(lower.notice!.message), /budget|tokens, not/, model);
    }
  });

  it('fits a budget to a smaller final max_tokens, or drops it under 1024', () => {
    assert.deepEqual(fitThinking({ budgetTokens: 8000 }, 24_000), { budgetTokens: 8000 });
    assert.deepEqual(fitThinking({ budgetTokens: 20_000 }, 16_000), { budgetTokens: 16_000 - THINKING_DEFAULTS.minReplyTokens });
    assert.deepEqual(fitThinking({ budgetTokens: 8000 }, 3000), { budgetTokens: 1500 });
    assert.equal(fitThinking({ budgetTokens: 8000 }, 2000), undefined);
    assert.equal(fitThinking(undefined, 20_000), undefined);
  });

  it('maps budgets to efforts: under 4,096 low, under 16,384 medium, else high', () => {
    assert.equal(effortForBudget(1024), 'low');
    assert.equal(effortForBudget(4095), 'low');
    assert.equal(effortForBudget(4096), 'medium');
    assert.equal(effortForBudget(THINKING_DEFAULTS.autoBudgetTokens), 'medium');
    assert.equal(effortForBudget(16_383), 'medium');
    assert.equal(effortForBudget(16_384), 'high');
  });
});

describe('thinking: what goes back', () => {
  const toolLoop: MessageParam[] = [
    { role: 'user', content: 'first task' },
    { role: 'assistant', content: [signed('old plan'), { type: 'text', text: 'done' }] },
    { role: 'user', content: 'second task' },
    { role: 'assistant', content: [signed('new plan'), { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'alpha' }] },
  ];

  it("drops completed turns' thinking from the live view and sends the current turn's blocks as the very objects", () => {
    assert.equal(currentTurnStart(toolLoop), 2);
    const view = buildLiveView(toolLoop, { boundary: undefined, edits: new Map() });
    assert.deepEqual(view[1], { role: 'assistant', content: [{ type: 'text', text: 'done' }] });
    assert.equal(view[3], toolLoop[3], 'the current turn goes as it is');
    assert.equal((view[3]!.content as unknown[])[0], (toolLoop[3]!.content as unknown[])[0]);
    assert.ok(opensWithThinking(view));
  });

  it('never sends unsigned thinking; a reply of thinking alone keeps a placeholder', () => {
    const unsigned: MessageParam = { role: 'assistant', content: [{ type: 'thinking', thinking: 'from a gateway', signature: '' }, { type: 'tool_use', id: 't', name: 'x', input: {} }] };
    assert.deepEqual(sendableThinking(unsigned, false), { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] });
    assert.deepEqual(sendableThinking({ role: 'assistant', content: [signed('only')] }, true), { role: 'assistant', content: [{ type: 'text', text: THINKING_ONLY_TEXT }] });
    const redacted: MessageParam = { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 'x' }] };
    assert.equal(sendableThinking(redacted, false), redacted);
    assert.ok(!opensWithThinking([...toolLoop.slice(0, 3), sendableThinking(unsigned, false), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'r' }] }]));
  });

  it("leaves out thinking another provider or model wrote, keeping the conversation", () => {
    const origins = [undefined, { provider: 'anthropic', model: 'claude-sonnet-4-5' }, undefined, { provider: 'anthropic', model: 'claude-opus-4-1' }, undefined];
    const { messages, foreign } = withoutForeignThinking(toolLoop, origins, { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    assert.deepEqual(foreign, ['anthropic/claude-opus-4-1']);
    assert.equal(messages[1], toolLoop[1], 'its own thinking stays');
    assert.deepEqual(messages[3], { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }] });
    assert.equal(messages.length, toolLoop.length);
  });

  it('says once which models wrote the thinking left out, and which model cannot take it', () => {
    const notice = foreignThinkingNotice(['anthropic/claude-opus-4-1', 'openai/gpt-5'], { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    assert.equal(notice.level, 'info');
    assert.equal(
      said(notice.message),
      'This conversation holds thinking written by anthropic/claude-opus-4-1 and openai/gpt-5; anthropic/claude-sonnet-4-5 cannot take it, so it is left out of requests. The conversation is kept, and the transcript still has it.',
    );
  });
});
