import type { UserText } from '../texts/userText';

/**
 * What every definition read from a file shares (a slash command, a custom mode, a skill): where it
 * came from and the notices its loading raised. A bad file never throws: it becomes a notice and
 * loading goes on with the next one.
 */

/** Whose file it is: the workspace's (a repository: text from strangers) or the user's own (~). */
export type DefinitionScope = 'workspace' | 'user';

/** Whose conventions a file follows: Claude Code's, GitHub Copilot's, or Evergreen's own. */
export type DefinitionFormat = 'claude' | 'copilot' | 'evergreen';

export interface DefinitionOrigin {
  scope: DefinitionScope;
  format: DefinitionFormat;
  /** The folder it was found in, as shown: `.claude/commands`, `~/.evergreen/skills`. */
  source: string;
  /** The file as shown: workspace-relative (`.claude/commands/review.md`) or `~/…` for the user's own. */
  file: string;
  /** Its absolute real path (symbolic links resolved). */
  real: string;
}

export type DefinitionNoticeKind =
  /** Not read at all: outside its folder through a link, not a regular file, binary, too large, unreadable. */
  | 'unreadable'
  /** The frontmatter is not valid YAML, not a mapping, or never closed: the file is not used. */
  | 'invalid-frontmatter'
  /** A field has the wrong type or breaks a rule (a skill's name, a description's length): ignored or cut. */
  | 'invalid-field'
  /** A field Evergreen reads but does not act on (Claude Code's hooks, `context: fork`, Copilot's handoffs). */
  | 'unsupported-field'
  /** A tool list names tools Evergreen does not have; they are left out (the list still only narrows). */
  | 'unknown-tool'
  /** A tool entry that grants approvals elsewhere (`Bash(git push:*)`): it offers the tool and grants nothing. */
  | 'grant-ignored'
  /** Two definitions of one name at the same level: the first (in the documented order) is used. */
  | 'duplicate'
  /** A definition hidden by one of the same name that takes precedence (the user's over the workspace's, a built-in over both). */
  | 'shadowed'
  /** Text cut to a cap (a skill's body or description). */
  | 'cut'
  /** Not valid UTF-8: read as Windows-1252. */
  | 'not-utf8'
  /** A folder held more than is read (files, depth): the rest is skipped. */
  | 'limit'
  /** The workspace is not trusted: its definitions were not loaded. */
  | 'untrusted';

/** One problem met while loading, for the user: `message` says what happened and what to do (worded by each front end). */
export interface DefinitionNotice {
  kind: DefinitionNoticeKind;
  /** The file or folder it is about, as shown. */
  file: string;
  message: UserText;
  /** The definition's name, when it has one. */
  name?: string;
  /** 'shadowed' and 'duplicate': the file whose definition is used instead. */
  winner?: string;
  /** 'unknown-tool', 'grant-ignored', 'unsupported-field': the entries concerned, as written. */
  entries?: string[];
}

export function notice(kind: DefinitionNoticeKind, file: string, message: UserText, extra: Omit<DefinitionNotice, 'kind' | 'file' | 'message'> = {}): DefinitionNotice {
  return { kind, file, message, ...extra };
}

/**
 * How loud a notice is for the user: what only explains (a file hidden by another of the same name,
 * an untrusted workspace's folders not read, a field Evergreen does not act on) is information;
 * a file or field that could not be used as written is a warning.
 */
export function definitionNoticeLevel(notice: Pick<DefinitionNotice, 'kind'>): 'warning' | 'info' {
  return notice.kind === 'shadowed' || notice.kind === 'untrusted' || notice.kind === 'unsupported-field' ? 'info' : 'warning';
}
