/**
 * What package.json says about the extension's own UI, in English: its commands (titles, icons,
 * and when they apply), its names and its trust notes. scripts/manifest.ts writes them into
 * package.json as `%key%` references and their English into package.nls.json; a language is added
 * as package.nls.<locale>.json with the same keys. The settings' texts are in
 * src/frontends/settingsManifest.ts. No `vscode` here: the generator runs in plain Node.
 */
import { CONTEXT_KEYS } from './contextKeys';
import { TRANSCRIPT_SCHEME } from './transcriptScheme';

const { chatActive, running } = CONTEXT_KEYS;

/** Beside Evergreen's own keys, when-clauses name only keys VS Code sets; test/unit/manifest.test.ts lists which. */
const TRANSCRIPT_TAB = `resourceScheme == ${TRANSCRIPT_SCHEME}`;

export interface CommandSpec {
  readonly title: string;
  /** A codicon, for the view's and the editor's title bars. */
  readonly icon: string;
  /**
   * When menus, keybindings and the palette offer it (VS Code's palette leaves out a disabled
   * command); unset: always. `executeCommand` runs it regardless, so the panel's own buttons and
   * the tests still reach it, and the command says why when it cannot act.
   */
  readonly enablement?: string;
  /** When the palette lists it, where that differs from `enablement` (unset: as enabled). */
  readonly palette?: string;
}

/** Every `evergreen.*` command, in the palette's and the manifest's order; the category is the extension's name. */
export const COMMANDS = {
  compactConversation: { title: 'Compact Conversation', icon: '$(fold)', enablement: `${chatActive} && !${running}` },
  undoLastCompaction: { title: 'Undo Last Compaction', icon: '$(discard)', enablement: `${chatActive} && !${running}` },
  openArchivedTranscript: { title: 'Open Archived Transcript…', icon: '$(book)' },
  // Its button is on the transcript tab's title bar; in the palette it is offered beside an open chat too.
  openRawTranscript: { title: 'Open Raw JSONL', icon: '$(json)', palette: `${chatActive} || ${TRANSCRIPT_TAB}` },
  newChat: { title: 'New Chat', icon: '$(add)' },
  setApiKey: { title: 'Set API Key', icon: '$(key)' },
  mcpServers: { title: 'MCP Servers', icon: '$(plug)' },
  webAccess: { title: 'Web Access', icon: '$(globe)' },
  setSearxngKey: { title: 'Set SearXNG Key', icon: '$(key)' },
  showHooks: { title: 'Hooks', icon: '$(zap)' },
  showContextBreakdown: { title: 'Show Context Breakdown', icon: '$(graph)', enablement: chatActive },
  // The view's clock reopens a past chat, as in other chat extensions; a read-only transcript is one menu away.
  resumeSession: { title: 'Resume Session…', icon: '$(history)' },
  reloadInstructions: { title: 'Reload Instructions', icon: '$(refresh)', enablement: `${chatActive} && !${running}` },
  // Memory belongs to the workspace, not to a chat: reviewable whether or not one is open.
  openMemory: { title: 'Open Memory', icon: '$(notebook)' },
  cancel: { title: 'Cancel', icon: '$(debug-stop)', enablement: running },
  // The Background Chats view's (issue 31): from the palette each asks which chat.
  newBackgroundChat: { title: 'New Background Chat…', icon: '$(add)' },
  refreshBackgroundChats: { title: 'Refresh Background Chats', icon: '$(refresh)' },
  reviewBackgroundChanges: { title: 'Review Changes', icon: '$(diff)' },
  applyBackgroundChanges: { title: 'Apply Changes', icon: '$(check-all)' },
  mergeBackgroundBranch: { title: 'Merge Branch', icon: '$(git-merge)' },
  discardBackgroundChat: { title: 'Discard…', icon: '$(trash)' },
} as const satisfies Readonly<Record<string, CommandSpec>>;

export type CommandId = keyof typeof COMMANDS;

/** The manifest's other words, by where they go. */
export const MANIFEST_TEXT = {
  displayName: 'Evergreen — coding agent that never runs out of context',
  description: 'A Claude coding agent in a sidebar chat with a tiered context-compression engine, a live token gauge, and full transcripts in workspace storage.',
  /** The commands' category in the palette, the view container's title (activity bar) and the view's contextual title. */
  extensionName: 'Evergreen',
  chatViewName: 'Chat',
  backgroundChatsViewName: 'Background Chats',
  untrustedWorkspaces: 'In an untrusted workspace Evergreen can read and answer, but its file-writing and shell tools are turned off.',
  virtualWorkspaces: 'Evergreen runs tools against files on disk.',
} as const;
