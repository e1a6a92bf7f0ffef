/**
 * The rendered archived transcript's page: the host renders its HTML (extension/transcriptHtml.ts);
 * this script only hands clicks to the host, which decides what a link may open, and scrolls to
 * a compaction's heading when asked. Browser code only; it sees the host through src/protocol.ts.
 */
import type { TranscriptHostToWebview, TranscriptWebviewToHost } from '../../protocol';

/** What the page keeps while its tab is hidden (it is reloaded when shown again). */
interface PageState {
  scrollY: number;
  /** Which transcript (the host's address, as it wrote it in the page): VS Code hands it back to the host after a reload. */
  transcript: unknown;
}

interface VsCodeApi {
  postMessage(message: TranscriptWebviewToHost): void;
  getState(): PageState | undefined;
  setState(state: PageState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('a[href], button[data-action]') : null;
  if (!target) return;
  // A webview would follow the link itself (or do nothing, for file: and the transcript scheme).
  event.preventDefault();
  const action = target.getAttribute('data-action');
  if (action === 'openSource' || action === 'openRaw') vscode.postMessage({ type: action });
  else vscode.postMessage({ type: 'openLink', href: target.getAttribute('href') ?? '' });
});

window.addEventListener('message', (event: MessageEvent<TranscriptHostToWebview>) => {
  const message = event.data;
  if (message?.type !== 'reveal') return;
  const heading = document.querySelector<HTMLElement>(`[data-line="${Number(message.line)}"]`);
  if (!heading) return;
  heading.scrollIntoView({ block: 'start' });
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
});

// Back where the reader was when the tab was hidden; the host then scrolls only when asked anew.
const saved = vscode.getState();
if (saved) window.scrollTo(0, saved.scrollY);
const kept = document.querySelector('[data-transcript]')?.getAttribute('data-transcript');
const transcript: unknown = kept ? JSON.parse(kept) : undefined;
const save = () => vscode.setState({ scrollY: window.scrollY, transcript });
save();
let saving: number | undefined;
window.addEventListener('scroll', () => {
  saving ??= window.setTimeout(() => {
    saving = undefined;
    save();
  }, 200);
});

vscode.postMessage({ type: 'ready' });
