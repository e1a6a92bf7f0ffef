/**
 * Where definitions live, in precedence order, and who may load them. The user's own folders come
 * first and win a name over the workspace's: a repository must not be able to replace a command,
 * mode or skill the user relies on with its own text (Claude Code resolves skills the same way,
 * personal over project). Within a scope, Evergreen's folder, then Claude Code's, then Copilot's.
 * An untrusted workspace contributes nothing (its folders are reported once, not read).
 */
import * as path from 'node:path';
import type { DefinitionFormat, DefinitionScope } from './types';

export type DefinitionKind = 'command' | 'mode' | 'skill';

export interface DefinitionSourceSpec {
  kind: DefinitionKind;
  scope: DefinitionScope;
  format: DefinitionFormat;
  /** The folder, relative to the workspace root or the home folder, '/'-separated. */
  folder: string;
  /** File names a definition has (commands and modes; a skill is a folder with SKILL.md). First match names the suffix to strip. */
  suffixes: readonly string[];
  /** Whether subfolders hold definitions too (a command's subfolder is its namespace). */
  recursive: boolean;
}

const spec = (kind: DefinitionKind, scope: DefinitionScope, format: DefinitionFormat, folder: string, suffixes: readonly string[], recursive = false): DefinitionSourceSpec => ({
  kind,
  scope,
  format,
  folder,
  suffixes,
  recursive,
});

/** Every source, in precedence order: the first definition of a name wins. */
export const DEFINITION_SOURCES: readonly DefinitionSourceSpec[] = [
  spec('command', 'user', 'evergreen', '.evergreen/commands', ['.md'], true),
  spec('command', 'user', 'claude', '.claude/commands', ['.md'], true),
  spec('command', 'workspace', 'evergreen', '.evergreen/commands', ['.md'], true),
  spec('command', 'workspace', 'claude', '.claude/commands', ['.md'], true),
  spec('command', 'workspace', 'copilot', '.github/prompts', ['.prompt.md']),
  spec('mode', 'user', 'evergreen', '.evergreen/modes', ['.md']),
  spec('mode', 'workspace', 'evergreen', '.evergreen/modes', ['.md']),
  // VS Code takes any .md in .github/agents as a custom agent (the documented name is NAME.agent.md).
  spec('mode', 'workspace', 'copilot', '.github/agents', ['.agent.md', '.md']),
  spec('mode', 'workspace', 'copilot', '.github/chatmodes', ['.chatmode.md']),
  spec('skill', 'user', 'evergreen', '.evergreen/skills', []),
  spec('skill', 'user', 'claude', '.claude/skills', []),
  spec('skill', 'workspace', 'evergreen', '.evergreen/skills', []),
  spec('skill', 'workspace', 'claude', '.claude/skills', []),
  spec('skill', 'workspace', 'copilot', '.github/skills', []),
];

/** Where a load looks: the workspace (absent: none open) and the home folder. */
export interface DefinitionRoots {
  /** The workspace root; absent when no folder is open. */
  workspaceRoot?: string | undefined;
  /** False for an untrusted workspace: only the user's own definitions load. */
  workspaceTrusted: boolean;
  /** The home folder (tests pass their own). */
  home: string;
}

/** A source as it applies to these roots. */
export interface DefinitionSource extends DefinitionSourceSpec {
  /** Absolute folder. */
  absolute: string;
  /** How it is shown: `.claude/commands` or `~/.claude/commands`. */
  label: string;
  /** The root it is confined to (the workspace root; for the user's own, the folder itself). */
  base: string;
}

/** The sources of one kind for these roots, in precedence order, and those an untrusted workspace skipped. */
export function sourcesFor(kind: DefinitionKind, roots: DefinitionRoots): { sources: DefinitionSource[]; untrusted: DefinitionSource[] } {
  const sources: DefinitionSource[] = [];
  const untrusted: DefinitionSource[] = [];
  for (const source of DEFINITION_SOURCES) {
    if (source.kind !== kind) continue;
    const base = source.scope === 'user' ? roots.home : roots.workspaceRoot;
    if (base === undefined) continue;
    const resolved: DefinitionSource = {
      ...source,
      absolute: path.join(base, ...source.folder.split('/')),
      label: source.scope === 'user' ? `~/${source.folder}` : source.folder,
      base,
    };
    if (source.scope === 'workspace' && !roots.workspaceTrusted) untrusted.push(resolved);
    else sources.push(resolved);
  }
  return { sources, untrusted };
}
