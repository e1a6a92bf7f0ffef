import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import type { ChatController } from './chatController';

/** The command palette surface (category "Evergreen"); each command delegates to the controller. */
export function registerCommands(controller: ChatController, apiKeys: ApiKeyStore): vscode.Disposable[] {
  const register = (id: string, run: () => unknown) => vscode.commands.registerCommand(`evergreen.${id}`, run);
  return [
    register('compactConversation', () => controller.compact()),
    register('undoLastCompaction', () => controller.undoLastCompaction()),
    register('newChat', () => controller.newChat()),
    register('setApiKey', () => apiKeys.promptAndStore()),
    register('showContextBreakdown', () => controller.showContextBreakdown()),
    register('resumeSession', () => controller.resumeSession()),
    register('cancel', () => controller.cancel()),
  ];
}
