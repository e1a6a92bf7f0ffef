// Issue 27 item 6: the context engine's and the model's sentences are kinds the front ends word;
// each reads in English as it did when the core wrote it, and a sentence that names a front end's
// command, setting or flag names only that front end's.
import * as assert from 'node:assert/strict';
import { windowLearnedText } from '../../src/core/context/learnedWindow';
import { tierNote } from '../../src/core/context/tierScheduling';
import { extractSummary, SummaryError } from '../../src/core/context/summary';
import { errorForStatus, ModelError, modelHint, modelSaid, withoutKey } from '../../src/core/model/errors';
import { errorEventFor } from '../../src/core/agent/errorEvent';
import { ContextWindowTooSmallError } from '../../src/core/context/engineTypes';
import { settingRef, userText, type UserText } from '../../src/core/texts/userText';
import type { ContextTexts } from '../../src/core/texts/context';
import type { ModelTexts } from '../../src/core/texts/model';
import type { TurnTexts } from '../../src/core/texts/turns';
import { configureWords, word } from '../../src/frontends/words';
import { cliHint } from '../../src/cli/errorHints';
import { errorText, extensionHint } from '../../src/extension/errorHints';

const cold = userText('context.whyCacheCold', {});
const api = userText('model.theApi', {});
const server = userText('model.theServer', {});

/** Every kind with sample data and the English the CLI prints (the extension's, unless voiced below). */
const CONTEXT: { [K in keyof ContextTexts]: [ContextTexts[K], string] } = {
  'context.truncated': [{ tool: 'run_shell' }, 'run_shell output cut to its head and tail'],
  'context.persisted': [{ tool: 'grep', id: 'tu_1', file: '/s/tool-results/tu_1.txt', recall: 'recall {"id":"tu_1"}' }, 'grep output tu_1 saved to /s/tool-results/tu_1.txt (recall {"id":"tu_1"} returns it)'],
  'context.cleared': [{ count: 3, reason: cold }, 'cleared 3 old tool result(s) because the prompt cache is cold'],
  'context.snipped': [{ count: 2, reason: userText('context.whyOverThreshold', {}) }, 'snipped 2 old tool result(s) because the context is over the auto-compact threshold'],
  'context.trimmed': [{ count: 1, reason: userText('context.whyReadsPaid', {}) }, 'trimmed 1 old tool result(s) because the reads they saved have paid for the cache rewrite'],
  'context.whyCacheCold': [{}, 'the prompt cache is cold'],
  'context.whyOverThreshold': [{}, 'the context is over the auto-compact threshold'],
  'context.whyReadsPaid': [{}, 'the reads they saved have paid for the cache rewrite'],
  'context.tierReplayed': [{ count: 4 }, '4 old tool result(s)'],
  'context.compactionFailed': [{ trigger: 'auto', reason: userText('context.compactionWaiting', {}) }, 'Compaction (auto) failed: a tool call is still waiting for its result; compaction runs before the next request instead'],
  'context.compactionWaiting': [{}, 'a tool call is still waiting for its result; compaction runs before the next request instead'],
  'context.summaryNoSection': [{}, 'the summary reply has no <summary> section'],
  'context.summaryEmptySection': [{}, 'the summary reply has an empty <summary> section'],
  'context.summaryCannotFit': [{}, 'the conversation cannot be shortened enough for the summary request to fit the window'],
  'context.summaryDidNotFit': [{ tries: 3 }, 'the summary request did not fit after 3 tries'],
  'context.breakerOpenHint': [{ failures: 3 }, "Automatic compaction is paused after 3 failures in a row. Compact by hand to try again — -p '/compact [focus]' (with --resume SESSION_ID) — or run without --resume to start a new session; the transcript is saved."],
  'context.compactionRetryHint': [{}, 'The history is unchanged. Evergreen tries again before the next request; you can also compact by hand ("/compact [focus]").'],
  'context.compactionFailedOutcome': [{ failure: userText('context.compactionFailed', { trigger: 'manual', reason: userText('verbatim', { text: 'boom' }) }), hint: userText('context.compactionRetryHint', {}) }, 'Compaction (manual) failed: boom. The history is unchanged. Evergreen tries again before the next request; you can also compact by hand ("/compact [focus]").'],
  'context.compactionCancelled': [{}, 'Compaction cancelled.'],
  'context.compacted': [{ trigger: 'manual', before: 12_345, after: 2_000, summarized: 10, kept: 2, restored: 1 }, 'Compacted (manual): ~12,345 -> ~2,000 tokens; 10 message(s) summarized, 2 kept verbatim, 1 file(s) restored.'],
  'context.compactPreview': [{ before: 12_345, after: 2_000, summarized: 10, kept: 2, restored: 0 }, 'Compact: ~12,345 -> ~2,000 tokens + the summary; 10 message(s) summarized, 2 kept verbatim, 0 file(s) restored.'],
  'context.conversationEmpty': [{}, 'Nothing to compact yet: the conversation is empty.'],
  'context.nothingToCompact': [{}, 'Nothing to compact yet: every message is already as short as it can be.'],
  'context.compactWhenTurnEnds': [{}, 'A tool call is still waiting for its result; compact when the turn has ended.'],
  'context.nothingToUndo': [{}, 'Nothing to undo: only the most recent compaction can be undone, once (a drop of old rounds after a "prompt is too long" cannot).'],
  'context.undoOverThreshold': [{ tokens: 31_261, threshold: 29_200, window: 40_000 }, 'Cannot undo the last compaction: the conversation before it plus what was added since (~31,261 tokens) is over the auto-compact threshold (29,200 of a 40,000-token window), so it would be compacted again right away. The full conversation stays in the transcript.'],
  'context.undone': [{ before: 950, after: 12_050 }, 'Compaction undone: ~950 -> ~12,050 tokens; the messages it summarized are sent verbatim again.'],
  'context.undoWhileWorking': [{}, 'The agent is working: undo the compaction when the turn has ended (or cancel it first).'],
  'context.undoUnsupported': [{}, 'This context strategy cannot undo compactions.'],
  'context.windowLearned': [{ window: 9_000, assumed: 200_000, value: '9000', setting: settingRef('contextWindow') }, "The server's context window is 9,000 tokens, smaller than the 200,000 assumed; Evergreen now compacts for 9,000. Set --context-window to 9000 to skip this."],
  'context.windowTooSmall': [{ window: 2_000, reserve: 400, base: 5_180, windowSetting: settingRef('contextWindow'), outputSetting: settingRef('maxOutputTokens') }, 'The context window (2,000 tokens, 400 reserved for the reply) is smaller than the system prompt and tool definitions (~5,180 tokens). Raise --context-window, or lower --max-output-tokens.'],
  'context.windowTooSmallHint': [{}, 'Change the setting, then send your message again.'],
  'context.tierClearTitle': [{}, 'Clear old tool results'],
  'context.tierSnipTitle': [{}, 'Snip superseded reads and old searches'],
  'context.tierTrimTitle': [{}, 'Trim old tool results'],
  'context.tierClearWhen': [{ percent: 60, keep: 3 }, 'when the prompt cache is cold, or above 60% of the usable window; keeps the 3 newest'],
  'context.tierSnipWhen': [{ percent: 40 }, 'above 40% of the usable window'],
  'context.tierTrimWhen': [{ soft: 30, hard: 60, chars: 30_000 }, 'above 30% / 60% of the usable window; trims old results to 30,000 characters'],
  'context.summaryWaitsForTool': [{}, 'a tool call is waiting for its result'],
  'context.summaryNothingYet': [{}, 'nothing to summarize yet'],
};

const MODEL: { [K in keyof ModelTexts]: [ModelTexts[K], string] } = {
  'model.theApi': [{}, 'The API'],
  'model.theServer': [{}, 'The server'],
  'model.keyRejected': [{ status: '401', detail: 'invalid x-api-key' }, 'The API key was rejected (401): invalid x-api-key'],
  'model.permissionDenied': [{ status: '403', detail: 'no' }, 'Permission denied (403): no'],
  'model.notFound': [{ status: '404', detail: 'gone' }, 'Not found (404): gone'],
  'model.rateLimited': [{ status: '429', detail: 'slow down' }, 'Rate limited (429): slow down'],
  'model.rateLimitedInStream': [{ detail: 'slow down' }, 'Rate limited (stream error): slow down'],
  'model.overloaded': [{ who: api, status: '529', detail: 'Overloaded' }, 'The API is overloaded (529): Overloaded'],
  'model.serverFailed': [{ who: server, status: '500', detail: 'oops' }, 'The server failed (500): oops'],
  'model.askedToRetry': [{ who: api, status: '409', detail: 'again' }, 'The API asked to try again (409): again'],
  'model.rejected': [{ who: api, status: '400', detail: 'bad' }, 'The API rejected the request (400): bad'],
  'model.rejectedInStream': [{ who: server, detail: 'bad' }, 'The server rejected the request (stream error): bad'],
  'model.failedMidReply': [{ detail: 'boom' }, 'The server failed mid-reply: boom'],
  'model.noQuota': [{ detail: 'quota' }, 'The account has no quota left (429): quota'],
  'model.noApiKey': [{ provider: 'Anthropic' }, 'No Anthropic API key is set.'],
  'model.unreachableAnthropic': [{ url: 'http://127.0.0.1:9', detail: 'ECONNREFUSED' }, 'Could not reach the Anthropic API at http://127.0.0.1:9: ECONNREFUSED'],
  'model.unreachableOpenai': [{ url: 'http://127.0.0.1:9/v1', detail: 'ECONNREFUSED' }, 'Could not reach the OpenAI-compatible API at http://127.0.0.1:9/v1: ECONNREFUSED'],
  'model.connectionDropped': [{ detail: 'socket hang up' }, 'The connection dropped: socket hang up'],
  'model.streamEnded': [{}, 'The connection dropped: the response stream ended before the reply was complete'],
  'model.streamStalled': [{ waited: userText('model.milliseconds', { value: 50 }) }, 'The response stream stalled: no data for 50 ms.'],
  'model.noReplyWithin': [{ waited: userText('model.seconds', { value: 1.5 }) }, 'The server sent no reply within 1.5 s.'],
  'model.milliseconds': [{ value: 200 }, '200 ms'],
  'model.seconds': [{ value: 600 }, '600 s'],
  'model.limitsNotSaid': [{ waited: userText('model.seconds', { value: 0.5 }), window: 128_000 }, "The server did not say the model's limits within 0.5 s; assuming a 128,000-token window."],
  'model.modelsApiSilent': [{ waited: userText('model.seconds', { value: 10 }) }, "The Models API did not answer within 10 s, so the model's limits are unknown."],
  'model.notCompatible': [{ url: 'http://h/v1', what: userText('model.answered', { url: 'http://h/v1', status: '404', body: '' }) }, 'The server at http://h/v1 is not an OpenAI-compatible API: POST http://h/v1/chat/completions answered 404.'],
  'model.answered': [{ url: 'http://h/v1', status: '405', body: ': Method Not Allowed' }, 'POST http://h/v1/chat/completions answered 405: Method Not Allowed'],
  'model.answeredWith': [{ url: 'http://h/v1', status: '200', type: 'text/html', body: ': <!DOCTYPE html>' }, 'POST http://h/v1/chat/completions answered 200 with text/html: <!DOCTYPE html>'],
  'model.answeredUntyped': [{ url: 'http://h/v1', status: '200', body: '' }, 'POST http://h/v1/chat/completions answered 200 with no content type'],
  'model.noToolCalls': [{ model: 'gemma2:2b', url: 'http://h/v1', detail: 'no tools' }, 'The model "gemma2:2b" at http://h/v1 does not support tool calls (the server said: no tools).'],
  'model.apiUnknownModel': [{ model: 'claude-9' }, 'The API does not know the model "claude-9".'],
  'model.serverUnknownModel': [{ model: 'gpt-9', detail: 'no such model' }, 'The server does not know the model "gpt-9" (404): no such model'],
  'model.promptTooLong': [{ model: 'small', detail: 'too long' }, 'prompt is too long (small: too long)'],
  'model.promptTooLongCounted': [{ prompt: '9100', max: '8192', model: 'small', detail: 'too long' }, 'prompt is too long: 9100 tokens > 8192 maximum (small: too long)'],
  'model.cancelled': [{}, 'Cancelled.'],
  'model.hintKeyPermission': [{}, 'Check that your key may use this model.'],
  'model.hintWaitAMoment': [{}, 'Wait a moment and try again.'],
  'model.hintTryInAMinute': [{}, 'Try again in a minute.'],
  'model.hintServiceStatus': [{}, 'Try again; if it persists, check the service status.'],
  'model.hintTryInAMoment': [{}, 'Try again in a moment.'],
  'model.hintBilling': [{}, 'Check the plan and billing details of this API key.'],
  'model.hintNetwork': [{}, 'Check your network and try again.'],
  'model.hintStalled': [{}, 'Check your network; Evergreen retries automatically.'],
  'model.hintServerRunning': [{}, 'Check that the server is running and not overloaded; Evergreen retries automatically.'],
};

const TURNS: { [K in keyof TurnTexts]: [TurnTexts[K], string] } = {
  'turns.roundLimit': [{ rounds: 50 }, 'Stopped after 50 tool rounds in one turn.'],
  'turns.roundLimitHint': [{}, 'Retry (or send "continue") to let the agent go on, or give it a narrower task.'],
};

const text = (kind: string, data: unknown): UserText => ({ kind, data }) as UserText;

describe('words: the context engine, the model and a turn speak in kinds', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  for (const [area, table] of Object.entries({ context: CONTEXT, model: MODEL, turns: TURNS })) {
    it(`words every ${area} kind in the English the core wrote`, () => {
      for (const [kind, [data, english]] of Object.entries(table)) assert.equal(word(text(kind, data)), english, kind);
    });
  }

  it("names the extension's commands and settings, the CLI's flags, never the other's", () => {
    const extension = {
      'context.breakerOpenHint': 'Automatic compaction is paused after 3 failures in a row. Compact by hand to try again — "Evergreen: Compact Conversation" or "/compact [focus]" in the chat — or start a New Chat; the transcript is saved.',
      'context.undoOverThreshold': 'Cannot undo the last compaction: the conversation before it plus what was added since (~31,261 tokens) is over the auto-compact threshold (29,200 of a 40,000-token window), so it would be compacted again right away. The full conversation stays in the transcript (Open Archived Transcript).',
      'context.windowLearned': "The server's context window is 9,000 tokens, smaller than the 200,000 assumed; Evergreen now compacts for 9,000. Set evergreen.contextWindow to 9000 to skip this.",
      'context.windowTooSmall': 'The context window (2,000 tokens, 400 reserved for the reply) is smaller than the system prompt and tool definitions (~5,180 tokens). Raise "evergreen.contextWindow", or lower "evergreen.maxOutputTokens".',
    } as const;
    for (const kind of Object.keys(extension) as (keyof typeof extension)[]) {
      configureWords({ locale: 'en', voice: 'cli' });
      const cli = word(text(kind, CONTEXT[kind][0]));
      assert.equal(cli, CONTEXT[kind][1], kind);
      assert.doesNotMatch(cli, /evergreen\.|Compact Conversation|New Chat|Open Archived Transcript/, kind);
      configureWords({ locale: 'en', voice: 'extension' });
      const vscode = word(text(kind, CONTEXT[kind][0]));
      assert.equal(vscode, extension[kind], kind);
      assert.doesNotMatch(vscode, /--[a-z]|-p /, kind);
    }
  });

  it("formats the engine's numbers in the user's locale (the extension's), identifiers as they are", () => {
    configureWords({ locale: 'de', voice: 'extension' });
    assert.equal(word(windowLearnedText(9_000, 200_000)), "The server's context window is 9.000 tokens, smaller than the 200.000 assumed; Evergreen now compacts for 9.000. Set evergreen.contextWindow to 9000 to skip this.");
  });

  it("says why a summary failed as a kind, the log's English beside it", () => {
    for (const [reply, english] of [['no tags', 'the summary reply has no <summary> section'], ['<summary> </summary>', 'the summary reply has an empty <summary> section']]) {
      assert.throws(
        () => extractSummary(reply!),
        (error: unknown) => error instanceof SummaryError && error.message === english && word(error.text) === english && error.text.kind !== 'verbatim',
      );
    }
  });

  it('builds a tier note from its tier and reason kinds', () => {
    assert.equal(word(tierNote('microcompact', 3, cold)), 'cleared 3 old tool result(s) because the prompt cache is cold');
    assert.equal(word(tierNote('budget', 2, cold)), 'trimmed 2 old tool result(s) because the prompt cache is cold');
    assert.equal(word(tierNote('snip', 1, cold)), 'snipped 1 old tool result(s) because the prompt cache is cold');
  });

  it('keeps a model error in English for the log and the model, and as a kind for the user', () => {
    const error = errorForStatus(529, 'Overloaded', 'api', 'anthropic', {});
    assert.equal(error.kind, 'overloaded');
    assert.equal(error.message, 'The API is overloaded (529): Overloaded');
    assert.equal(error.text.kind, 'model.overloaded');
    assert.equal(word(error.text), error.message);
    assert.deepEqual(error.hint, modelHint('model.hintTryInAMinute'));
    assert.equal(cliHint(error.hint), 'Try again in a minute.');
    assert.equal(extensionHint(error.hint), 'Try again in a minute.');
    assert.equal(errorText(error), 'The API is overloaded (529): Overloaded Try again in a minute.');
    // Each status's English and its worded kind agree.
    for (const status of [0, 400, 401, 403, 404, 408, 429, 500, 503]) {
      const each = errorForStatus(status, 'the detail', 'server', 'openai', {});
      assert.equal(word(each.text), each.message, String(status));
    }
  });

  it("redacts a URL's password and the key in the user's text as in the message", () => {
    const error = new ModelError('connection', modelSaid('model.connectionDropped', { detail: 'http://u:pw@h/ key sk-secret-1234567890' }, 'The connection dropped: http://u:pw@h/ key sk-secret-1234567890'), undefined);
    withoutKey(error, 'sk-secret-1234567890');
    for (const shown of [error.message, word(error.text)]) {
      assert.doesNotMatch(shown, /pw@|sk-secret-1234567890/, shown);
      assert.match(shown, /\*\*\*@h/);
    }
  });

  it("gives the error event the model error's kinds, and a server's English as it is", () => {
    const event = errorEventFor('t1', errorForStatus(429, 'slow', 'api', 'anthropic', {}));
    assert.equal(event.kind, 'rate_limited');
    assert.equal(word(event.message), 'Rate limited (429): slow');
    assert.equal(event.hint && word(event.hint), 'Wait a moment and try again.');
    const keyed = errorEventFor('t1', errorForStatus(401, 'bad key', 'api', 'anthropic', {}));
    assert.deepEqual([keyed.hint, keyed.errorHint], [undefined, { kind: 'badKey', provider: 'anthropic' }], 'a hint naming a front end stays a hint kind');
    const plain = errorEventFor('t1', new ModelError('prompt_too_long', 'prompt is too long: 5 tokens > 4 maximum', undefined));
    assert.equal(word(plain.message), 'prompt is too long: 5 tokens > 4 maximum');
    const small = errorEventFor('t1', new ContextWindowTooSmallError('too small', userText('context.windowTooSmall', CONTEXT['context.windowTooSmall'][0])));
    assert.equal(small.kind, 'context_window_too_small');
    assert.equal(word(small.message), CONTEXT['context.windowTooSmall'][1]);
    assert.equal(small.hint && word(small.hint), 'Change the setting, then send your message again.');
  });
});
