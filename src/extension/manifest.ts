/**
 * What package.json says about the extension's own UI, in English: its commands (titles, icons,
 * and when they apply), its names and its trust notes. scripts/manifest.ts writes them into
 * package.json as `%key%` references and their English into package.nls.json; a language is added
 * as package.nls.<locale>.json with the same keys. The settings' texts are in
 * src/frontends/settingsManifest.ts. No `vscode` here: the generator runs in plain Node.
 */
import { CONTEXT_KEYS } from './contextKeys';
import { TRANSCRIPT_SCHEME, TRANSCRIPT_VIEW_TYPE } from './transcriptScheme';

const { chatActive, running } = CONTEXT_KEYS;
/** VS Code's own key (test/unit/manifest.test.ts lists the ones the manifest may read). */
const MULTI_ROOT = 'workspaceFolderCount > 1';

/** Beside Evergreen's own keys, when-clauses name only keys VS Code sets; test/unit/manifest.test.ts lists which. */
const TRANSCRIPT_SOURCE_TAB = `resourceScheme == ${TRANSCRIPT_SCHEME}`;
const TRANSCRIPT_RENDERED_TAB = `activeWebviewPanelId == ${TRANSCRIPT_VIEW_TYPE}`;
const TRANSCRIPT_TAB = `${TRANSCRIPT_SOURCE_TAB} || ${TRANSCRIPT_RENDERED_TAB}`;

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
  // The transcript opens rendered; its source (and back) is a button on the tab's title bar.
  openTranscriptSource: { title: 'Open Transcript Source', icon: '$(go-to-file)', palette: TRANSCRIPT_RENDERED_TAB },
  openTranscriptRendered: { title: 'Open Rendered Transcript', icon: '$(open-preview)', palette: TRANSCRIPT_SOURCE_TAB },
  newChat: { title: 'New Chat', icon: '$(add)' },
  // The sidebar's chat, its message box focused; the walkthrough passes `{ insert: '@' }` to open the @ picker.
  focusChat: { title: 'Focus Chat Input', icon: '$(comment-discussion)' },
  // A multi-root workspace: which folder the next chat works in (remembered).
  chooseChatFolder: { title: 'Choose Chat Folder…', icon: '$(root-folder)', enablement: `${MULTI_ROOT} && !${running}` },
  setApiKey: { title: 'Set API Key', icon: '$(key)' },
  mcpServers: { title: 'MCP Servers', icon: '$(plug)' },
  webAccess: { title: 'Web Access', icon: '$(globe)' },
  setSearxngKey: { title: 'Set SearXNG Key', icon: '$(key)' },
  showHooks: { title: 'Hooks', icon: '$(zap)' },
  showContextBreakdown: { title: 'Show Context Breakdown', icon: '$(graph)', enablement: chatActive },
  // The open chat's, or a saved session's: it applies with no chat open too.
  showSessionInsights: { title: 'Show Session Insights', icon: '$(graph-line)' },
  // The view's clock reopens a past chat, as in other chat extensions; a read-only transcript is one menu away.
  resumeSession: { title: 'Resume Session…', icon: '$(history)' },
  openRun: { title: 'Open Run…', icon: '$(cloud-download)' },
  reloadInstructions: { title: 'Reload Instructions', icon: '$(refresh)', enablement: `${chatActive} && !${running}` },
  // Without a chat it picks the next chat's mode.
  switchMode: { title: 'Switch Mode…', icon: '$(list-selection)', enablement: `!${running}` },
  // Memory belongs to the workspace, not to a chat: reviewable whether or not one is open.
  openMemory: { title: 'Open Memory', icon: '$(notebook)' },
  cancel: { title: 'Cancel', icon: '$(debug-stop)', enablement: running },
  // The Chats list's (issue 31): a row's click and its menu; from the palette each asks which chat.
  showChat: { title: 'Show Chat…', icon: '$(comment-discussion)' },
  closeChat: { title: 'Close Chat…', icon: '$(close)' },
  // The same chat page in an editor tab of its own (a new chat; closing the tab closes it).
  openChatInEditor: { title: 'Open Chat in Editor', icon: '$(open-preview)' },
  // A Background Chats row's: its conversation in the panel, read-only (from the palette it says to pick a row).
  showBackgroundChat: { title: 'Show Background Chat Conversation', icon: '$(comment-discussion)' },
  // The Background Chats view's (issue 31): from the palette each asks which chat.
  newBackgroundChat: { title: 'New Background Chat…', icon: '$(add)' },
  refreshBackgroundChats: { title: 'Refresh Background Chats', icon: '$(refresh)' },
  reviewBackgroundChanges: { title: 'Review Changes', icon: '$(diff)' },
  applyBackgroundChanges: { title: 'Apply Changes', icon: '$(check-all)' },
  // Per hunk (issue 31): Accept and Reject on the rows of a chat's Changes, then Apply Accepted on the chat.
  acceptBackgroundChange: { title: 'Accept', icon: '$(check)', palette: 'false' },
  rejectBackgroundChange: { title: 'Reject', icon: '$(close)', palette: 'false' },
  applyAcceptedBackgroundChanges: { title: 'Apply Accepted Changes', icon: '$(check)' },
  openBackgroundWorktree: { title: 'Open Worktree in New Window', icon: '$(empty-window)' },
  // The panel's chat, hunk by hunk since a checkpoint (issue 31): it says why when no chat is open.
  reviewCheckpointChanges: { title: 'Review Changes Since Checkpoint…', icon: '$(diff)', enablement: `${chatActive} && !${running}` },
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
  chatsViewName: 'Chats',
  backgroundChatsViewName: 'Background Chats',
  untrustedWorkspaces: 'In an untrusted workspace Evergreen can read and answer, but its file-writing and shell tools are turned off.',
  virtualWorkspaces: 'Evergreen runs tools against files on disk.',
} as const;

export interface KeybindingSpec {
  command: CommandId;
  /** Windows and Linux. */
  key: string;
  mac: string;
  when?: string;
}

/**
 * Chords under Ctrl+K (Cmd+K on macOS), as VS Code's own "Ctrl+K M" and "Ctrl+K V" are: none of
 * them is in VS Code 1.100's default keybindings (read from the workbench when they were chosen),
 * and a chord never takes a Ctrl+Alt key, which AltGr types on Windows keyboards (€, @, ł).
 */
export const KEYBINDINGS: readonly KeybindingSpec[] = [
  { command: 'focusChat', key: 'ctrl+k a', mac: 'cmd+k a' },
  { command: 'newChat', key: 'ctrl+k n', mac: 'cmd+k n' },
  { command: 'cancel', key: 'ctrl+k x', mac: 'cmd+k x', when: running },
];

/** What the Marketplace shows besides the texts: the icon, the banner behind the header, where it is listed. */
export const MARKETPLACE = {
  icon: 'media/icon.png',
  galleryBanner: { color: '#12372a', theme: 'dark' },
  // "Programming Languages" is for language support (grammars, servers): not this.
  categories: ['AI', 'Chat'],
  keywords: ['claude', 'anthropic', 'agent', 'coding agent', 'ai', 'chat', 'context', 'compaction', 'tokens', 'mcp', 'openai', 'sandbox'],
} as const;

export interface WalkthroughStep {
  id: string;
  title: string;
  /** Markdown; a line that is only a `command:` link shows as a button that runs it. */
  description: string;
  media: { markdown: string } | { svg: string; altText: string };
  /** When the step is checked off (VS Code's completion events). */
  completionEvents?: readonly string[];
}

/** A command link with arguments, as the walkthrough's buttons run them. */
export function commandLink(label: string, command: string, args?: unknown): string {
  return `[${label}](command:${command}${args === undefined ? '' : `?${encodeURIComponent(JSON.stringify(args))}`})`;
}

const setting = (label: string, name: string) => commandLink(label, 'workbench.action.openSettings', [name]);

/** "Get started with Evergreen" (issue 33): each step has a button that does it, and a short text or picture beside it. */
export const WALKTHROUGH = {
  id: 'evergreen.start',
  title: 'Get started with Evergreen',
  description: 'A coding agent that never runs out of context: set it up and try what it does, in seven steps.',
  steps: [
    {
      id: 'key',
      title: 'Set your API key or pick a provider',
      description: `Evergreen talks to Claude through Anthropic's API, or to any OpenAI-compatible server (OpenAI, a gateway, a local model). The key is kept in VS Code's secret storage, never in settings.\n${commandLink('Set API Key', 'evergreen.setApiKey')}\n${setting('Pick a Provider', 'evergreen.provider')}`,
      media: { markdown: 'media/walkthrough/key.md' },
      completionEvents: ['onCommand:evergreen.setApiKey', 'onSettingChanged:evergreen.provider'],
    },
    {
      id: 'chat',
      title: 'Send a first message',
      description: `Open the chat in the side bar, say what you want done and press Enter. Evergreen reads files, proposes edits and runs commands; you approve what changes your workspace.\n${commandLink('Open the Chat', 'evergreen.focusChat')}`,
      media: { markdown: 'media/walkthrough/chat.md' },
      completionEvents: [`onContext:${chatActive}`],
    },
    {
      id: 'attach',
      title: 'Attach a file with @',
      description: `Type @ in the message box and pick a file or folder: its contents go with your message. The editor's selection is offered as a chip of its own.\n${commandLink('Attach a File', 'evergreen.focusChat', { insert: '@' })}`,
      media: { markdown: 'media/walkthrough/attach.md' },
    },
    {
      id: 'gauge',
      title: 'Watch the gauge, open the breakdown',
      description: `The bar above the chat shows how full the model's context window is; the mark is where Evergreen summarizes by itself. Click it to see what fills the context, or see the whole session as charts.\n${commandLink('Show Context Breakdown', 'evergreen.showContextBreakdown')}\n${commandLink('Show Session Insights', 'evergreen.showSessionInsights')}`,
      media: { svg: 'media/walkthrough/gauge.svg', altText: 'The context gauge: a bar filled to 62% of the window, a mark at the auto-compact threshold, and its label "62% · 124k / 200k".' },
      completionEvents: ['onCommand:evergreen.showContextBreakdown', 'onCommand:evergreen.showSessionInsights'],
    },
    {
      id: 'compact',
      title: 'Compact, and read the transcript',
      description: `Compacting summarizes older messages to free room. Nothing is lost: every session's full transcript stays on disk, the model can search it, and you can read it rendered.\n${commandLink('Compact Conversation', 'evergreen.compactConversation')}\n${commandLink('Open Archived Transcript', 'evergreen.openArchivedTranscript')}`,
      media: { markdown: 'media/walkthrough/compact.md' },
      completionEvents: ['onCommand:evergreen.compactConversation', 'onCommand:evergreen.openArchivedTranscript'],
    },
    {
      id: 'mcp',
      title: 'Add an MCP server',
      description: `MCP servers give the agent more tools. Add yours in the setting, or a workspace's in .vscode/mcp.json (VS Code's format) or .mcp.json; a workspace's servers start only once you allow them.\n${commandLink('MCP Servers', 'evergreen.mcpServers')}\n${setting('MCP Settings', 'evergreen.mcp.servers')}`,
      media: { markdown: 'media/walkthrough/mcp.md' },
      completionEvents: ['onCommand:evergreen.mcpServers'],
    },
    {
      id: 'sandbox',
      title: 'What the sandbox does',
      description: `The commands the agent runs are confined by the operating system: they write only inside the workspace (Git hooks and editor settings ask you first) and reach only the network hosts you allow. With the sandbox off, commands run with your full permissions, so they ask first.\n${setting('Sandbox Settings', 'evergreen.sandbox')}`,
      media: { svg: 'media/walkthrough/sandbox.svg', altText: 'A command inside the sandbox: it writes to the workspace, Git hooks and settings wait for your approval, and only allowed hosts are reachable.' },
      completionEvents: ['onSettingChanged:evergreen.sandbox.enabled'],
    },
  ],
} as const satisfies { id: string; title: string; description: string; steps: readonly WalkthroughStep[] };
