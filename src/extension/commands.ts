import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import type { Chats } from './chats';
import type { ChatSurface } from './chatViewProvider';
import type { CommandId } from './manifest';
import { readSettings } from './settings';
import type { WorkspaceWebDomains } from './webAccess';
import { setSearxngKey, showWebAccess } from './webAccessCommand';

/** The command palette surface (category "Evergreen"); each command acts on the chat the panel shows. */
export function registerCommands(chats: Chats, apiKeys: ApiKeyStore, webDomains: WorkspaceWebDomains, surface: ChatSurface): vscode.Disposable[] {
  const register = (id: CommandId, run: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(`evergreen.${id}`, run);
  const controller = () => chats.shown.controller;
  return [
    register('compactConversation', () => controller().compaction.compact()),
    register('undoLastCompaction', () => controller().compaction.undoLastCompaction()),
    register('newChat', () => chats.newChat()),
    register('focusChat', (args) => focusChat(surface, args)),
    register('chooseChatFolder', () => chats.shown.folders.choose()),
    // The active provider's key: switch "evergreen.provider" first to set the other one.
    register('setApiKey', async () => {
      if (await apiKeys.promptAndStore(readSettings().provider)) await controller().focusInput();
    }),
    register('showContextBreakdown', () => controller().showContextBreakdown()),
    register('mcpServers', () => controller().showMcpServers()),
    register('webAccess', () => showWebAccess(webDomains)),
    register('setSearxngKey', () => setSearxngKey(apiKeys)),
    register('showHooks', () => controller().showHooks()),
    register('resumeSession', () => controller().resumeSession()),
    register('openMemory', () => controller().openMemory()),
    register('cancel', () => controller().cancel()),
    register('switchMode', () => controller().switchMode()),
    register('reloadInstructions', async () => {
      const outcome = await controller().reloadInstructionsNow();
      if (outcome.ok) void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
      else void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
    }),
  ];
}

/** What `focusChat` may type for its caller: the characters that open the composer's pickers, nothing else. */
const FOCUS_INSERTS = new Set(['@', '/']);

/** The chat's message box, focused; `{ insert: '@' }` (the walkthrough's "Attach a File") types it there. */
async function focusChat(surface: ChatSurface, args: unknown): Promise<void> {
  const asked = typeof args === 'object' && args !== null ? (args as { insert?: unknown }).insert : undefined;
  const insert = typeof asked === 'string' && FOCUS_INSERTS.has(asked) ? asked : undefined;
  await surface.reveal();
  surface.post({ type: 'focusInput', ...(insert ? { insert } : {}) });
}
