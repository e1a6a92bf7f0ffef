import * as vscode from 'vscode';

/**
 * Fires a virtual document's change and waits (at most `timeoutMs`) until VS Code has re-read it:
 * an open tab re-reads asynchronously, and what is shown next must be the new text.
 */
export async function fireAndAwaitReread(uri: vscode.Uri, fire: () => void, timeoutMs: number): Promise<void> {
  const key = uri.toString();
  const reread = new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const subscription = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document.uri.toString() === key) done();
    });
    const timer = setTimeout(done, timeoutMs);
  });
  fire();
  await reread;
}
