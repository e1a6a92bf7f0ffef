/**
 * The summary prompt of tier 4 (docs/architecture.md, "Context engine"): the model first writes an <analysis>, then a
 * 9-part <summary>; only the summary enters the history. The instruction is appended to the
 * conversation itself, so the request reuses the conversation's cached prefix.
 */
import { userText, type UserText } from '../texts/userText';

/** Opens every summary block in the live view; the breakdown and the transcript view look for it. */
export const SUMMARY_MARK = 'This session continues an earlier conversation whose older part was summarized';

export function summaryInstruction(focus: string | undefined, keptNote: string): string {
  return [
    'CONTEXT COMPACTION — do not call any tools; reply with text only.',
    'The context window is filling up. Write a summary of the whole conversation above so the work can continue from it after older messages are removed from the context.',
    keptNote,
    '',
    'First think inside <analysis> tags: go through the conversation in order and note each user request, what you did, which files you read or changed, errors and how they were fixed, and where the work stands now.',
    'Then write the summary inside <summary> tags with exactly these nine sections:',
    '1. Primary request and intent: every request of the user, in detail.',
    '2. Key technical concepts: technologies, conventions and decisions that matter.',
    '3. Files and code sections: each file read, changed or created, why it matters, and the important code (paths exact).',
    '4. Errors and fixes: every error met and how it was resolved, including the user\'s feedback.',
    '5. Problem solving: problems solved and any ongoing troubleshooting.',
    '6. All user messages: every message the user wrote (not tool results), verbatim or nearly — they hold facts the rest of the task needs.',
    '7. Pending tasks: what was asked and is not done yet.',
    '8. Current work: precisely what was being done right before this summary, with file names and the last steps completed (so none is redone).',
    '9. Next step: the next action, in line with the most recent request; quote the request where it helps.',
    ...(focus ? ['', `The user asks the summary to focus on: ${focus}`] : []),
  ].join('\n');
}

/** A summary that could not be made: `message` in English (the log, the transcript's record), `text` for the user. */
export class SummaryError extends Error {
  override name = 'SummaryError';
  constructor(
    message: string,
    readonly text: UserText,
  ) {
    super(message);
  }
}

export class SummaryFormatError extends SummaryError {
  override name = 'SummaryFormatError';
}

/** The <summary> body with the <analysis> removed; throws SummaryFormatError when it is missing or empty. */
export function extractSummary(reply: string): string {
  const withoutAnalysis = reply.replace(/<analysis>[\s\S]*?(<\/analysis>|$)/g, '');
  const match = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(withoutAnalysis);
  if (!match) throw new SummaryFormatError('the summary reply has no <summary> section', userText('context.summaryNoSection', {}));
  const body = match[1]!.trim();
  if (!body) throw new SummaryFormatError('the summary reply has an empty <summary> section', userText('context.summaryEmptySection', {}));
  return body;
}
