/**
 * What the user is told about a session that just started or resumed: a model whose window had to
 * be guessed, and transcript lines that could not be read (the rest of the conversation was restored).
 */
import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import { settingName } from '../frontends/settingsTable';
import { word } from '../frontends/words';

export function showSessionStartWarnings(started: StartedSession): void {
  const modelInfoWarning = started.client.modelInfoWarning;
  if (modelInfoWarning) {
    const openSettings = vscode.l10n.t('Open Settings');
    void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0} Using a context window of {1} tokens; set "{2}" if it differs.', word(modelInfoWarning), started.window.toLocaleString('en-US'), settingName('contextWindow')), openSettings).then((choice) => {
      if (choice === openSettings) void vscode.commands.executeCommand('workbench.action.openSettings', settingName('contextWindow'));
    });
  }
  if (started.transcriptProblems.length > 0) {
    const lines = started.transcriptProblems.map((problem) => problem.line).join(', ');
    void vscode.window.showWarningMessage(vscode.l10n.t("Evergreen: {0} unreadable line(s) of this session's transcript were skipped (line {1}); the rest of the conversation was restored.", started.transcriptProblems.length, lines));
  }
}
