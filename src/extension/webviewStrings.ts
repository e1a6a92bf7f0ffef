/**
 * The panels' words in the user's language (issue 27 item 6): each English text of WEBVIEW_STRINGS
 * through vscode.l10n.t (a text is its own key in l10n/bundle.l10n*.json; scripts/l10n.ts puts them
 * there), as the page's JSON data block that webview/strings.ts reads.
 */
import * as vscode from 'vscode';
import { WEBVIEW_STRINGS, type WebviewStringKey, type WebviewStrings } from '../protocol';

export function webviewStrings(): WebviewStrings {
  const table = {} as Record<WebviewStringKey, string>;
  // No values: the panel fills `{0}` itself, and vscode.l10n.t leaves placeholders without values as written.
  for (const [key, english] of Object.entries(WEBVIEW_STRINGS) as [WebviewStringKey, string][]) table[key] = vscode.l10n.t(english);
  return table;
}
