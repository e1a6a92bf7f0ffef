import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import type { HostToWebview, WebviewToHost } from '../protocol';
import { webviewHtml, webviewResourceRoots } from './webviewHtml';
import { describeRejectedMessage, parseWebviewMessage, refusedReply, requestIdOf } from './webviewRequests';

/**
 * The chat's page in a webview, wherever it is (the sidebar view, an editor tab): its options and
 * HTML, and every incoming message checked before anyone sees it. A message that fails the check is
 * logged and, when it carries a request id, refused, so the page never waits on it.
 */
export function attachChatPage(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  logger: Logger,
  handlers: { message(message: WebviewToHost): void; reply(message: HostToWebview): void },
): vscode.Disposable {
  webview.options = { enableScripts: true, localResourceRoots: webviewResourceRoots(extensionUri) };
  // Thumbnails of the user's own image attachments (userMessageView.ts); model markdown never has <img>.
  webview.html = webviewHtml(webview, extensionUri, { script: 'webview.js', style: 'chat.css', rootId: 'evergreen-root', title: vscode.l10n.t('Evergreen'), imgSrc: 'data:' });
  return webview.onDidReceiveMessage((raw: unknown) => {
    const message = parseWebviewMessage(raw);
    if (!message) {
      // Ignored, since the webview is a less trusted context, but never silently: logged, and answered when it can be.
      logger.warn(`ignored ${describeRejectedMessage(raw)} from the chat webview`);
      const requestId = requestIdOf(raw);
      if (requestId !== undefined) handlers.reply(refusedReply(requestId));
      return;
    }
    handlers.message(message);
  });
}
