import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import type { ChatController } from './chatController';
import type { CommandId } from './manifest';
import { readSettings } from './settings';
import type { WorkspaceWebDomains } from './webAccess';
import { setSearxngKey, showWebAccess } from './webAccessCommand';

/** The command palette surface (category "Evergreen"); each command delegates to the controller. */
export function registerCommands(controller: ChatController, apiKeys: ApiKeyStore, webDomains: WorkspaceWebDomains): vscode.Disposable[] {
  const register = (id: CommandId, run: () => unknown) => vscode.commands.registerCommand(`evergreen.${id}`, run);
  return [
    register('compactConversation', () => controller.compact()),
    register('undoLastCompaction', () => controller.undoLastCompaction()),
    register('newChat', () => controller.newChat()),
    // The active provider's key: switch "evergreen.provider" first to set the other one.
    register('setApiKey', async () => {
      if (await apiKeys.promptAndStore(readSettings().provider)) await controller.focusInput();
    }),
    register('showContextBreakdown', () => controller.showContextBreakdown()),
    register('mcpServers', () => controller.showMcpServers()),
    register('webAccess', () => showWebAccess(webDomains)),
    register('setSearxngKey', () => setSearxngKey(apiKeys)),
    register('showHooks', () => controller.showHooks()),
    register('resumeSession', () => controller.resumeSession()),
    register('openMemory', () => controller.openMemory()),
    register('cancel', () => controller.cancel()),
    register('reloadInstructions', async () => {
      const outcome = await controller.reloadInstructionsNow();
      if (outcome.ok) void vscode.window.showInformationMessage(`Evergreen: ${outcome.message}`);
      else void vscode.window.showWarningMessage(`Evergreen: ${outcome.message}`);
    }),
  ];
}
