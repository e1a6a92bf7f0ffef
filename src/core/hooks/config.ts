/**
 * Hook definitions in Claude Code's settings format (`hooks` → event → matcher groups → handlers),
 * checked with zod. Pure: a settings value in, hooks and problems out. A problem names the file and
 * the JSON path and drops only the entry it concerns; what Claude Code accepts but Evergreen does not
 * run (other hook types, events Evergreen never fires) is an `info` problem, since the same file
 * serves Claude Code too.
 */
import { createHash } from 'node:crypto';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from '../zod';
import { userText, verbatim, type UserText } from '../texts/userText';
import { CLAUDE_ONLY_EVENTS, EVENTS_WITHOUT_MATCHER, HOOK_EVENTS, isHookEventName, type HookEventName } from './events';
import { compileMatcher, type HookMatcher } from './matcher';

/** A hook's time limit when its definition sets none (Claude Code's historical default). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The longest `timeout` taken; a longer one is cut to this (a timer past about 24 days would fire at once). */
export const MAX_HOOK_TIMEOUT_SECONDS = 3_600;

/** Where a hook came from: a workspace's needs the user's consent, and runs in the sandbox. */
export interface HookOrigin {
  scope: 'user' | 'workspace';
  /** The file (absolute), or the setting's name. */
  source: string;
  /** How the user reads it: `.claude/settings.json` for the workspace's, `~/.claude/settings.json`. */
  label: string;
}

export type HookScope = HookOrigin['scope'];

export interface ConfiguredHook {
  event: HookEventName;
  /** As written; undefined when the group has none. */
  matcher: string | undefined;
  match: HookMatcher;
  /** As written. With `args`, the program to run (Claude Code's exec form). */
  command: string;
  args: readonly string[] | undefined;
  timeoutSeconds: number;
  origin: HookOrigin;
  /** The group and handler in the file: `$.hooks.PreToolUse[0].hooks[1]`. */
  where: string;
  /**
   * Over the whole definition (event, matcher, command, arguments, timeout, file): any change gives
   * a new key, so a workspace hook that changed asks for consent again. Also the hook's id (turning
   * one off for a chat).
   */
  consentKey: string;
}

export interface HookConfigProblem {
  /** `file` or `file $.hooks.PreToolUse[0].hooks[1].timeout`. */
  where: string;
  message: UserText;
  /** error: the entry is wrong and was dropped; info: valid for Claude Code, not run by Evergreen. */
  level: 'error' | 'info';
}

export interface HookSettings {
  /** The file or setting read (`HookOrigin.source`). */
  source: string;
  hooks: ConfiguredHook[];
  problems: HookConfigProblem[];
  /** The file set `"disableAllHooks": true`. */
  disableAllHooks: boolean;
}

const HooksMapSchema = z.record(z.string(), z.unknown());
const SettingsSchema = z.looseObject({ hooks: HooksMapSchema.optional(), disableAllHooks: z.boolean().optional() });
const GroupSchema = z.looseObject({ matcher: z.string().nullish(), hooks: z.array(z.unknown()) });
// A pattern, not a refine: the setting's JSON schema (derived from these) can say it too.
const nonBlank = z.string().regex(/\S/, 'must not be empty');
const CommandHandlerSchema = z.looseObject({
  type: z.literal('command'),
  command: nonBlank,
  args: z.array(z.string()).optional(),
  timeout: z.number().positive().optional(),
  shell: z.literal('bash', { error: 'only "bash" is supported' }).optional(),
  async: z.boolean().optional(),
  asyncRewake: z.boolean().optional(),
  if: z.string().optional(),
});
type CommandHandler = z.infer<typeof CommandHandlerSchema>;
const OTHER_HANDLER_TYPE_NAMES = ['http', 'mcp_tool', 'prompt', 'agent'] as const;
const OTHER_HANDLER_TYPES: ReadonlySet<string> = new Set(OTHER_HANDLER_TYPE_NAMES);

/**
 * The setting `evergreen.hooks` as its JSON schema describes it (settingSchemas.ts derives the
 * Settings editor's check from it): a value passes exactly when `parseHookSettingsValue(value, …,
 * { bare: true })` reports no error, except for what a JSON schema cannot say (a matcher that is
 * not a valid regular expression). Claude Code's other handler types and events are accepted, as
 * the parser accepts them (info problems), since the same hooks serve Claude Code.
 */
const SettingGroupsSchema = z
  .array(GroupSchema.extend({ hooks: z.array(z.discriminatedUnion('type', [CommandHandlerSchema, z.looseObject({ type: z.enum(OTHER_HANDLER_TYPE_NAMES) })])) }))
  // One definition the events refer to, not ten copies in package.json.
  .meta({ id: 'hookMatcherGroups' });
export const HooksSettingSchema = z.strictObject(
  Object.fromEntries([...HOOK_EVENTS.map((event) => [event, SettingGroupsSchema.optional()] as const), ...[...CLAUDE_ONLY_EVENTS].map((event) => [event, z.unknown().optional()] as const)]),
);

function lineColumn(text: string, offset: number): { line: string; column: string } {
  const before = text.slice(0, offset);
  return { line: String(before.split('\n').length), column: String(offset - before.lastIndexOf('\n')) };
}

/** A zod failure as a problem: the parser's own words, shown as they are. */
function zodProblem(error: z.ZodError, base: string): { where: string; message: UserText } {
  const { where, message } = z.zodProblem(error, base);
  return { where, message: verbatim(message) };
}

/**
 * One settings file's text. `comments`: JSON with comments and trailing commas (Evergreen's own
 * files); Claude Code's files are strict JSON there, so they are here too.
 */
export function parseHookSettingsText(text: string, origin: HookOrigin, options: { comments: boolean }): HookSettings {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: options.comments, disallowComments: !options.comments });
  if (errors.length > 0) {
    const first = errors[0]!;
    return { source: origin.source, hooks: [], disableAllHooks: false, problems: [{ where: origin.source, message: userText('hooks.notJson', { code: printParseErrorCode(first.error), ...lineColumn(text, first.offset) }), level: 'error' }] };
  }
  return parseHookSettingsValue(value, origin);
}

/** A settings object (`{ "hooks": {...}, "disableAllHooks": … }`), or with `bare` the `hooks` map itself (the setting `evergreen.hooks`). */
export function parseHookSettingsValue(value: unknown, origin: HookOrigin, options: { bare?: boolean } = {}): HookSettings {
  const failed = (error: z.ZodError): HookSettings => ({ source: origin.source, hooks: [], disableAllHooks: false, problems: [{ ...zodProblem(error, `${origin.source} $`), level: 'error' }] });
  let map: Record<string, unknown>;
  let disableAllHooks = false;
  if (options.bare) {
    const parsed = HooksMapSchema.safeParse(value);
    if (!parsed.success) return failed(parsed.error);
    map = parsed.data;
  } else {
    const parsed = SettingsSchema.safeParse(value);
    if (!parsed.success) return failed(parsed.error);
    map = parsed.data.hooks ?? {};
    disableAllHooks = parsed.data.disableAllHooks === true;
  }
  const hooks: ConfiguredHook[] = [];
  const problems: HookConfigProblem[] = [];
  const root = options.bare ? `${origin.source} $` : `${origin.source} $.hooks`;
  for (const [event, groups] of Object.entries(map)) {
    const at = `${root}.${event}`;
    if (!isHookEventName(event)) {
      problems.push(
        CLAUDE_ONLY_EVENTS.has(event)
          ? { where: at, message: userText('hooks.claudeOnlyEvent', { event }), level: 'info' }
          : { where: at, message: userText('hooks.unknownEvent', { event, events: HOOK_EVENTS.join(', ') }), level: 'error' },
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push({ where: at, message: userText('hooks.notMatcherGroups', {}), level: 'error' });
      continue;
    }
    groups.forEach((group: unknown, index) => parseGroup(event, group, `${at}[${index}]`, origin, hooks, problems));
  }
  return { source: origin.source, hooks, problems, disableAllHooks };
}

function parseGroup(event: HookEventName, value: unknown, at: string, origin: HookOrigin, hooks: ConfiguredHook[], problems: HookConfigProblem[]): void {
  const group = GroupSchema.safeParse(value);
  if (!group.success) {
    problems.push({ ...zodProblem(group.error, at), level: 'error' });
    return;
  }
  const matcher = group.data.matcher ?? undefined;
  // Claude Code ignores a matcher on an event that has none; so does Evergreen (a bad one included).
  const compiled = EVENTS_WITHOUT_MATCHER.has(event) ? ({ kind: 'all' } as const) : compileMatcher(matcher);
  if ('problem' in compiled) {
    problems.push({ where: `${at}.matcher`, message: userText('hooks.badMatcher', compiled.problem), level: 'error' });
    return;
  }
  group.data.hooks.forEach((handler: unknown, index) => {
    const where = `${at}.hooks[${index}]`;
    const parsed = parseHandler(handler, where, problems);
    if (parsed) hooks.push(configuredHook(event, matcher, compiled, parsed, origin, where, problems));
  });
}

function parseHandler(value: unknown, where: string, problems: HookConfigProblem[]): CommandHandler | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type === 'string' && OTHER_HANDLER_TYPES.has(type)) {
    problems.push({ where: `${where}.type`, message: userText('hooks.otherHandlerType', { type }), level: 'info' });
    return undefined;
  }
  const handler = CommandHandlerSchema.safeParse(value);
  if (!handler.success) {
    problems.push({ ...zodProblem(handler.error, where), level: 'error' });
    return undefined;
  }
  if (handler.data.async === true || handler.data.asyncRewake === true) {
    problems.push({ where: `${where}.async`, message: userText('hooks.asyncIgnored', {}), level: 'info' });
  }
  if (handler.data.if !== undefined) {
    problems.push({ where: `${where}.if`, message: userText('hooks.ifIgnored', {}), level: 'info' });
  }
  return handler.data;
}

function configuredHook(event: HookEventName, matcher: string | undefined, match: HookMatcher, handler: CommandHandler, origin: HookOrigin, where: string, problems: HookConfigProblem[]): ConfiguredHook {
  let timeoutSeconds = handler.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  if (timeoutSeconds > MAX_HOOK_TIMEOUT_SECONDS) {
    problems.push({ where: `${where}.timeout`, message: userText('hooks.timeoutCut', { seconds: timeoutSeconds, max: MAX_HOOK_TIMEOUT_SECONDS }), level: 'info' });
    timeoutSeconds = MAX_HOOK_TIMEOUT_SECONDS;
  }
  // The label, not the absolute path: the key is remembered per workspace, wherever it is checked out.
  const consentKey = createHash('sha256')
    .update(JSON.stringify(['hook/1', event, matcher ?? null, 'command', handler.command, handler.args ?? null, handler.timeout ?? null, origin.scope, origin.label]))
    .digest('hex');
  return { event, matcher, match, command: handler.command, args: handler.args, timeoutSeconds, origin, where, consentKey };
}

/** The hook as the consent prompt and the hooks list show it: event, matcher, the command as written, timeout, file. */
export function describeHook(hook: ConfiguredHook): UserText {
  const command = hook.args === undefined ? hook.command : [hook.command, ...hook.args].map((word) => JSON.stringify(word)).join(' ');
  const described = { event: hook.event, command, seconds: hook.timeoutSeconds, file: hook.origin.label };
  const matched = hook.matcher !== undefined && hook.matcher !== '' && !EVENTS_WITHOUT_MATCHER.has(hook.event);
  return matched ? userText('hooks.describedMatching', { ...described, matcher: hook.matcher! }) : userText('hooks.described', described);
}

/** Hooks described (`describeHook`) one after another: each front end words the separator (a kind's data holds no list of texts). */
export function describeHooks(first: ConfiguredHook, rest: readonly ConfiguredHook[]): UserText {
  return [first, ...rest].map(describeHook).reduceRight((more, hook) => userText('hooks.describedAndMore', { hook, more }));
}
