/**
 * A subagent's outcome in words (issue 27 item 6): the core says only its status; the CLI, the
 * archived transcript and the panel each say it, in the same English.
 */
import assert from 'node:assert/strict';
import type { SubagentStatus } from '../../src/core/agent/events';
import { configureWords, word } from '../../src/frontends/words';
import { subagentStatusEnglish, subagentStatusText } from '../../src/frontends/words/subagents';
import { WEBVIEW_STRINGS } from '../../src/protocol';

const ENGLISH: Readonly<Record<SubagentStatus, string>> = { done: 'done', limit: 'hit a limit', error: 'failed', cancelled: 'cancelled' };
const STATUSES = Object.keys(ENGLISH) as SubagentStatus[];

describe('subagent words: each outcome, said by every front end', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words each status as before, in both voices', () => {
    for (const status of STATUSES) {
      const text = subagentStatusText(status);
      assert.equal(text.kind, `subagents.status.${status}`);
      assert.equal(word(text), ENGLISH[status], status);
    }
    configureWords({ locale: 'en', voice: 'extension' });
    for (const status of STATUSES) assert.equal(word(subagentStatusText(status)), ENGLISH[status], status);
  });

  it('the archived transcript and the panel say the same English', () => {
    for (const status of STATUSES) {
      assert.equal(subagentStatusEnglish(status), ENGLISH[status]);
      assert.equal(WEBVIEW_STRINGS[`subagent.${status}`], ENGLISH[status]);
    }
  });
});
