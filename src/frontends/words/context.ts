/** Words for the context engine: tier actions, compactions, undo, a learned window (the kinds are in src/core/texts/context.ts). */
import type { ContextTexts } from '../../core/texts/context';
import { wordsFor } from './template';

export const CONTEXT_WORDS = wordsFor<ContextTexts>()({
  'context.truncated': '{tool} output cut to its head and tail',
  'context.persisted': '{tool} output {id} saved to {file} ({recall} returns it)',
  'context.cleared': 'cleared {count} old tool result(s) because {reason}',
  'context.snipped': 'snipped {count} old tool result(s) because {reason}',
  'context.trimmed': 'trimmed {count} old tool result(s) because {reason}',
  'context.whyCacheCold': 'the prompt cache is cold',
  'context.whyOverThreshold': 'the context is over the auto-compact threshold',
  'context.whyReadsPaid': 'the reads they saved have paid for the cache rewrite',
  'context.tierReplayed': '{count} old tool result(s)',
  'context.compactionFailed': 'Compaction ({trigger}) failed: {reason}',
  'context.compactionWaiting': 'a tool call is still waiting for its result; compaction runs before the next request instead',
  'context.summaryNoSection': 'the summary reply has no <summary> section',
  'context.summaryEmptySection': 'the summary reply has an empty <summary> section',
  'context.summaryCannotFit': 'the conversation cannot be shortened enough for the summary request to fit the window',
  'context.summaryDidNotFit': 'the summary request did not fit after {tries} tries',
  'context.breakerOpenHint': {
    extension: 'Automatic compaction is paused after {failures} failures in a row. Compact by hand to try again — "Evergreen: Compact Conversation" or "/compact [focus]" in the chat — or start a New Chat; the transcript is saved.',
    cli: "Automatic compaction is paused after {failures} failures in a row. Compact by hand to try again — -p '/compact [focus]' (with --resume SESSION_ID) — or run without --resume to start a new session; the transcript is saved.",
  },
  'context.compactionRetryHint': 'The history is unchanged. Evergreen tries again before the next request; you can also compact by hand ("/compact [focus]").',
  'context.compactionFailedOutcome': '{failure}. {hint}',
  'context.compactionCancelled': 'Compaction cancelled.',
  'context.compacted': 'Compacted ({trigger}): ~{before} -> ~{after} tokens; {summarized} message(s) summarized, {kept} kept verbatim, {restored} file(s) restored.',
  'context.compactPreview': 'Compact: ~{before} -> ~{after} tokens + the summary; {summarized} message(s) summarized, {kept} kept verbatim, {restored} file(s) restored.',
  'context.conversationEmpty': 'Nothing to compact yet: the conversation is empty.',
  'context.nothingToCompact': 'Nothing to compact yet: every message is already as short as it can be.',
  'context.compactWhenTurnEnds': 'A tool call is still waiting for its result; compact when the turn has ended.',
  'context.nothingToUndo': 'Nothing to undo: only the most recent compaction can be undone, once (a drop of old rounds after a "prompt is too long" cannot).',
  'context.undoOverThreshold': {
    extension:
      'Cannot undo the last compaction: the conversation before it plus what was added since (~{tokens} tokens) is over the auto-compact threshold ({threshold} of a {window}-token window), so it would be compacted again right away. The full conversation stays in the transcript (Open Archived Transcript).',
    cli: 'Cannot undo the last compaction: the conversation before it plus what was added since (~{tokens} tokens) is over the auto-compact threshold ({threshold} of a {window}-token window), so it would be compacted again right away. The full conversation stays in the transcript.',
  },
  'context.undone': 'Compaction undone: ~{before} -> ~{after} tokens; the messages it summarized are sent verbatim again.',
  'context.undoWhileWorking': 'The agent is working: undo the compaction when the turn has ended (or cancel it first).',
  'context.undoUnsupported': 'This context strategy cannot undo compactions.',
  'context.windowLearned': "The server's context window is {window} tokens, smaller than the {assumed} assumed; Evergreen now compacts for {window}. Set {setting} to {value} to skip this.",
  'context.windowTooSmall': {
    extension: 'The context window ({window} tokens, {reserve} reserved for the reply) is smaller than the system prompt and tool definitions (~{base} tokens). Raise "{windowSetting}", or lower "{outputSetting}".',
    cli: 'The context window ({window} tokens, {reserve} reserved for the reply) is smaller than the system prompt and tool definitions (~{base} tokens). Raise {windowSetting}, or lower {outputSetting}.',
  },
  'context.windowTooSmallHint': 'Change the setting, then send your message again.',
});
