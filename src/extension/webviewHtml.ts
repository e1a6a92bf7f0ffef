import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { WEBVIEW_STRINGS_ELEMENT_ID } from '../protocol';
import { jsonForScriptElement } from './scriptJson';
import { webviewStrings } from './webviewStrings';

/** What a webview page of the extension loads: its bundle under dist/, its style under media/, the element it renders into. */
export interface WebviewPage {
  script: string;
  style: string;
  rootId: string;
  title: string;
  /** Image sources beyond none (the chat shows the user's own image attachments as data: URLs). */
  imgSrc?: string;
  /** HTML the host rendered and made inert (the archived transcript's), placed inside the root element. */
  body?: string;
}

/** Where a page's files may load from: the bundles and the styles, nothing else of the extension or the disk. */
export function webviewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * The HTML of one of the extension's webviews (the chat, the session insights), under one policy:
 * nothing loads but the extension's own style and the one script carrying a fresh nonce; no
 * inline script or style, no network, no frames. Every page carries the panels' words in the
 * user's language as a JSON data block (never run: its type is not a script's).
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const scriptUri = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', page.script));
  const styleUri = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', page.style));
  const csp = ["default-src 'none'", `style-src ${webview.cspSource}`, ...(page.imgSrc ? [`img-src ${page.imgSrc}`] : []), `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="${vscode.env.language.replace(/[^\w-]/g, '')}">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link href="${styleUri}" rel="stylesheet">
  <title>${page.title}</title>
</head>
<body>
  <div id="${page.rootId}">${page.body ?? ''}</div>
  <script type="application/json" id="${WEBVIEW_STRINGS_ELEMENT_ID}">${jsonForScriptElement(webviewStrings())}</script>
  <script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
