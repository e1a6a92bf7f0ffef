import * as vscode from 'vscode';
import { TRANSCRIPT_VIEW_TYPE } from '../../src/extension/transcriptScheme';

/** The rendered archived-transcript tabs open in the workbench (the tab's view type carries VS Code's own prefix). */
export function renderedTranscriptTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(TRANSCRIPT_VIEW_TYPE));
}
