/**
 * Words for tool cards and approval cards (the kinds are in src/core/texts/approvals.ts). Why a
 * path is protected is said once, in the core's PROTECTED_WHY (the sandbox tells the model the
 * same reasons): its English is the template of each `approval.protected…` kind.
 */
import { PROTECTED_WHY } from '../../core/approvals/protectedPaths';
import { protectedWhyKind } from '../../core/approvals/texts';
import type { ApprovalCardTexts, ProtectedWhy, ProtectedWhyKind, ProtectedWhyTexts, ToolHeadlineTexts } from '../../core/texts/approvals';
import { wordsFor, type WordsFor } from './template';

const TOOL_HEADLINE_WORDS = wordsFor<ToolHeadlineTexts>()({
  'tool.readFromLine': '{path} (from line {line})',
  'tool.editAll': '{path} (all occurrences)',
  'tool.recallFrom': '{id} (from character {offset})',
  'tool.grep': '/{pattern}/ in {path}',
  'tool.grepGlob': '/{pattern}/ in {path} ({glob})',
  'tool.listFiles': '{path} {pattern}',
  'tool.fetchWithPrompt': '{url} — {prompt}',
  'tool.task': '{agentType}: {description}',
  'tool.mcpCall': '{server}: {tool} {input}',
  'tool.memory': '{command} {path}',
  'tool.memoryRename': 'rename {from} → {to}',
  'tool.planSteps': { one: '{title} · {count} step', other: '{title} · {count} steps' },
  'tool.todos': '{done}/{total} done',
  'tool.todosCurrent': '{done}/{total} done · {current}',
});

const APPROVAL_CARD_WORDS = wordsFor<ApprovalCardTexts>()({
  'approval.hintReadOnly': 'read-only',
  'approval.hintDestructive': 'may delete or overwrite',
  'approval.hintIdempotent': 'repeatable',
  'approval.hintOpenWorld': 'reaches outside systems',
  'approval.heldNew': 'a new {path}: {why}',
  'approval.heldWhyClaude': "Claude Code's project settings run hooks and define its commands and agents",
  'approval.heldWhyJetBrains': "JetBrains IDEs' project settings hold run configurations and startup tasks",
  'approval.heldWhyOutside': 'it configures what runs outside the sandbox',
  'approval.heldGitLink': 'a .git link: Git would use the folder it points to, and its configuration, as this repository',
  'approval.heldGitFile': 'a .git file: Git would use the folder it names, and its configuration, as this repository',
  'approval.heldLinkInGitDir': 'a link inside the Git directory {where}: Git could read configuration through it',
  'approval.heldGitHook': 'a Git hook in {where}: Git runs it outside the sandbox',
  'approval.heldGitRedirect': '{name} in {where}: Git would read its configuration from the folder it names',
  'approval.heldGitConfig': 'Git configuration in {where} that runs commands or points Git elsewhere',
});

const PROTECTED_WHY_WORDS = Object.fromEntries(Object.entries(PROTECTED_WHY).map(([why, english]) => [protectedWhyKind(why as ProtectedWhy), english])) as Record<ProtectedWhyKind, string>;

export const APPROVAL_WORDS = {
  ...TOOL_HEADLINE_WORDS,
  ...APPROVAL_CARD_WORDS,
  ...wordsFor<ProtectedWhyTexts>()(PROTECTED_WHY_WORDS),
} satisfies WordsFor<ToolHeadlineTexts & ApprovalCardTexts & ProtectedWhyTexts>;
