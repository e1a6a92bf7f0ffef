import * as vscode from 'vscode';
import { Disposable } from './disposable';

export const PROPOSED_SCHEME = 'evergreen-proposed';

/**
 * Shows a proposed write in VS Code's diff editor while the approval is pending: the current file
 * on the left, the agent's version (a read-only virtual document) on the right.
 */
export class ProposedChanges extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private counter = 0;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Opens the diff; the returned function closes its tab and forgets the content. */
  async show(absolutePath: string, relativePath: string, newContent: string, isNew: boolean): Promise<() => void> {
    const proposed = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${++this.counter}/${relativePath}` });
    this.contents.set(proposed.toString(), newContent);
    // A new file is compared with an empty document of the same name.
    const original = isNew ? vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${this.counter}-empty/${relativePath}` }) : vscode.Uri.file(absolutePath);
    await vscode.commands.executeCommand('vscode.diff', original, proposed, `${relativePath} (proposed by Evergreen)`, { preview: true, preserveFocus: true });
    return () => {
      this.contents.delete(proposed.toString());
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString()) void vscode.window.tabGroups.close(tab);
        }
      }
    };
  }

  /** A restore's diff: the file as the checkpoint has it (left; empty when it did not exist) against the file now (right; empty when absent). */
  async showCheckpointDiff(absolutePath: string, relativePath: string, checkpointContent: string | undefined, existsNow: boolean, checkpoint: number): Promise<void> {
    const id = ++this.counter;
    const then = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${id}-checkpoint/${relativePath}` });
    this.contents.set(then.toString(), checkpointContent ?? '');
    const now = existsNow ? vscode.Uri.file(absolutePath) : vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${id}-absent/${relativePath}` });
    await vscode.commands.executeCommand('vscode.diff', then, now, `${relativePath} (checkpoint ${checkpoint} ↔ now)`, { preview: true, preserveFocus: true });
  }
}
