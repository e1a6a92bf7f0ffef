/**
 * What the core tells a user, as a kind with its data (issue 27 item 6). The core never words a
 * notice, an outcome or a label; each front end words a `UserText` from its table
 * (src/frontends/words/), the extension in the user's language and the CLI in English.
 *
 * A subsystem declares its kinds as an interface of kind -> data next to its code, and adds it to
 * `UserTextKinds` below. Data values are what a front end can word without knowing the subsystem:
 * numbers are quantities (formatted in the user's locale: an identifier such as a line, a pid or
 * an exit code is passed as a string), lists of names are joined in the user's language, and a
 * nested `UserText` is worded first. Text that is not ours (a server's or the OS's message, a
 * record written before this) is data too, shown as it came.
 */

import type { UserTextValue } from './value';
import type { StartTexts } from './start';
import type { HookTexts } from './hooks';
import type { InstructionTexts } from './instructions';
import type { GaugeTexts } from './gauge';
import type { InsightTexts } from './insights';
import type { SubagentTexts } from './subagents';
import type { WorktreeTexts } from './worktrees';
import type { CustomizationTexts } from './customization';
import type { ContextTexts } from './context';
import type { ModelTexts } from './model';
import type { TurnTexts } from './turns';
import type { ApprovalTexts } from './approvals';
import type { BuiltinTexts } from './builtins';

/** Text that is not the core's to word: a server's message, an OS error, an older record's English. */
interface VerbatimTexts {
  verbatim: { text: string };
}

/**
 * A setting named in a sentence, by its key under `evergreen.` ("contextWindow"): the extension
 * words it as the setting's id, the CLI as the flag that sets the same thing.
 */
interface SettingTexts {
  setting: { key: string };
}

/** A setting named in a sentence (see SettingTexts). */
export function settingRef(key: string): UserText {
  return { kind: 'setting', data: { key } };
}

/** Every kind the core says to a user, with its data: each subsystem's interface, extended here. */
export interface UserTextKinds
  extends VerbatimTexts, SettingTexts, StartTexts, HookTexts, InstructionTexts, GaugeTexts, InsightTexts, SubagentTexts, WorktreeTexts, CustomizationTexts, ContextTexts, ModelTexts, TurnTexts, ApprovalTexts, BuiltinTexts {}

type UserTextKind = keyof UserTextKinds;

export type { NestedText, UserTextValue } from './value';

export type UserText = { [K in UserTextKind]: { kind: K; data: UserTextKinds[K] } }[UserTextKind];

// Compile-time wall: a kind whose data holds anything else fails here, naming the kind.
type DataProblem = { [K in UserTextKind]: UserTextKinds[K] extends Readonly<Record<string, UserTextValue>> ? never : K }[UserTextKind];
const dataIsWordable: [DataProblem] extends [never] ? true : { kindWithUnwordableData: DataProblem } = true;
void dataIsWordable;

export function userText<K extends UserTextKind>(kind: K, data: UserTextKinds[K]): UserText {
  return { kind, data } as UserText;
}

/** Text that is not ours to word (see VerbatimTexts), shown as it is. */
export function verbatim(text: string): UserText {
  return { kind: 'verbatim', data: { text } };
}

/** How a UserText reads in the log (for developers): its kind and data, no wording. */
export function userTextForLog(text: UserText): string {
  return text.kind === 'verbatim' ? text.data.text : `${text.kind} ${JSON.stringify(text.data)}`;
}

/**
 * A value as a front end shows it: every `UserText` inside it worded to a string. The panel and
 * the CLI get events in this form (src/frontends/words/wordEvent.ts); the core's events hold kinds.
 */
export type Worded<T> = T extends UserText
  ? string
  : T extends string | number | boolean | bigint | symbol | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? Worded<Item>[]
      : T extends object
        ? { [K in keyof T]: Worded<T[K]> }
        : T;

