/**
 * The page the webview benchmark loads: the panel's own HTML (src/extension/chatViewProvider.ts:
 * #evergreen-root, media/chat.css, dist/webview.js) served from a fake origin, plus a bench script
 * that stubs acquireVsCodeApi, records long tasks and exposes the measurements. The bench script
 * is plain JS served as a file, so the CSP stays close to the product's (no inline script).
 */
import type { BrowserContext, Page } from 'playwright-core';

export const ORIGIN = 'http://evergreen.bench';

/**
 * A new page of `context` on this page, serving the panel's `bundle` (dist/webview.js) and
 * `chatCss` (media/chat.css), once the panel has said `ready`. `errors` collects the page's
 * uncaught errors, and its console errors too when asked.
 */
export async function loadPanelPage(context: BrowserContext, files: { bundle: string; chatCss: string }, options: { consoleErrors?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const served: Record<string, { body: string; contentType: string }> = {
    '/index.html': { body: INDEX_HTML, contentType: 'text/html' },
    '/bench.js': { body: BENCH_JS, contentType: 'text/javascript' },
    '/webview.js': { body: files.bundle, contentType: 'text/javascript' },
    '/chat.css': { body: files.chatCss, contentType: 'text/css' },
    '/theme.css': { body: THEME_CSS, contentType: 'text/css' },
  };
  await context.route(`${ORIGIN}/**`, (route) => {
    const file = served[new URL(route.request().url()).pathname];
    return file ? route.fulfill({ status: 200, body: file.body, contentType: file.contentType }) : route.fulfill({ status: 404, body: '' });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  if (options.consoleErrors) {
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
  }
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (window as unknown as BenchWindow).__bench.posted.some((message) => message.type === 'ready'), undefined, { timeout: 30_000 });
  return { page, errors };
}

export const INDEX_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${ORIGIN}; script-src ${ORIGIN}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link href="${ORIGIN}/theme.css" rel="stylesheet">
  <link href="${ORIGIN}/chat.css" rel="stylesheet">
  <title>Evergreen webview bench</title>
  <script src="${ORIGIN}/bench.js"></script>
</head>
<body>
  <div id="evergreen-root"></div>
  <script src="${ORIGIN}/webview.js"></script>
</body>
</html>`;

/** A few of the variables VS Code's theme defines, so fonts and code blocks lay out as in the product. */
export const THEME_CSS = `:root {
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #ccc; --vscode-sideBar-background: #1e1e1e; --vscode-input-background: #3c3c3c;
  --vscode-panel-border: #444; --vscode-textCodeBlock-background: #2a2a2a; --vscode-descriptionForeground: #999;
}`;

/** What the bench script returns for one restore. */
export interface RenderSample {
  /** Posting the state message -> the render that put the last item in the DOM has finished (JS, incl. its forced layout). */
  builtMs: number;
  /** Posting -> the first task after that frame (style, layout and paint done). */
  paintedMs: number;
  /** Posting -> all items in the DOM (the older ones are added in idle slices after the last). */
  completeMs: number;
  /** Long tasks (ms) from posting to complete. */
  longTasks: number[];
  /** Pixels below the visible part of the transcript once complete: the view must stay at the bottom while older items are added above. */
  bottomGap: number;
  scrollHeight: number;
}

/** What the bench script returns for one streamed reply. */
export interface StreamSample {
  /** From turn_started to the rendered end of the reply. */
  durationMs: number;
  /** How long posting the deltas took (5 s at 200/s when the page keeps up). */
  postingMs: number;
  deltas: number;
  /** Long tasks (ms) from turn_started on. */
  longTasks: number[];
  /** Gaps between animation frames while streaming (ms). */
  frameGaps: number[];
  /** `## Step` headings rendered in the finished reply (a check that all text arrived). */
  headings: number;
}

export interface BenchWindow {
  __bench: {
    posted: Array<{ type: string }>;
    measureRender(args: { state: unknown; expected: number; marker: string }): Promise<RenderSample>;
    stream(args: { state: unknown; expected: number; marker: string; deltas: string[]; intervalMs: number }): Promise<StreamSample>;
  };
}

export const BENCH_JS = `(() => {
  'use strict';
  const bench = { posted: [], longTasks: [] };
  window.__bench = bench;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  let saved;
  window.acquireVsCodeApi = () => ({
    postMessage: (message) => bench.posted.push(message),
    getState: () => saved,
    setState: (state) => { saved = state; },
  });
  // VS Code delivers host messages as window 'message' events, one task each: the same here.
  const post = (message) => window.postMessage(message, '*');
  const transcript = () => document.querySelector('.eg-transcript');
  const longTasksSince = (t0) => bench.longTasks.filter((task) => task.start >= t0).map((task) => task.duration);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // Resolves once the last item (it carries \`marker\`) is in the transcript: \`built\` when the
  // mutation lands (end of the render task), \`painted\` at the first task after that frame;
  // \`complete\` once all \`expected\` items are in the DOM (older ones may be added later).
  function whenRestored(marker, expected) {
    const list = transcript();
    return new Promise((resolve) => {
      let built;
      let painted;
      const done = () => {
        if (painted === undefined || list.childElementCount !== expected) return;
        observer.disconnect();
        resolve({ built, painted, complete: Math.max(painted, performance.now()) });
      };
      const observer = new MutationObserver(() => {
        const last = list.lastElementChild;
        if (built === undefined) {
          if (!last || !last.textContent.includes(marker)) return;
          built = performance.now();
          const channel = new MessageChannel();
          channel.port1.onmessage = () => {
            painted = performance.now();
            done();
          };
          channel.port2.postMessage(0);
        }
        done();
      });
      observer.observe(list, { childList: true });
    });
  }

  bench.measureRender = async ({ state, expected, marker }) => {
    const done = whenRestored(marker, expected);
    const t0 = performance.now();
    post({ type: 'state', state });
    const { built, painted, complete } = await done;
    await sleep(100); // The observer reports a long task after it ends.
    const list = transcript();
    const bottomGap = list.scrollHeight - list.scrollTop - list.clientHeight;
    return { builtMs: built - t0, paintedMs: painted - t0, completeMs: complete - t0, longTasks: longTasksSince(t0), bottomGap, scrollHeight: list.scrollHeight };
  };

  bench.stream = async ({ state, expected, marker, deltas, intervalMs }) => {
    const restored = whenRestored(marker, expected);
    post({ type: 'state', state });
    await restored;
    await sleep(500);
    const frameGaps = [];
    let lastFrame;
    let framing = true;
    const onFrame = (now) => {
      if (lastFrame !== undefined) frameGaps.push(now - lastFrame);
      lastFrame = now;
      if (framing) requestAnimationFrame(onFrame);
    };
    requestAnimationFrame(onFrame);
    const turnId = 'bench-stream';
    performance.mark('bench-stream-start'); // Bounds the streaming phase in the Chromium trace.
    const start = performance.now();
    post({ type: 'agentEvent', event: { type: 'turn_started', turnId, userText: 'Write the whole plan down, step by step.' } });
    let sent = 0;
    // Paced by the clock, not by the timer count: a late tick posts every delta that is due, as
    // the host's queue would deliver them.
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(deltas.length, Math.floor((performance.now() - start) / intervalMs) + 1);
        while (sent < due) post({ type: 'agentEvent', event: { type: 'text_delta', turnId, text: deltas[sent++] } });
        if (sent >= deltas.length) {
          clearInterval(timer);
          resolve();
        }
      }, intervalMs);
    });
    const postingMs = performance.now() - start;
    post({ type: 'agentEvent', event: { type: 'turn_finished', turnId, stopReason: 'end_turn' } });
    const list = transcript();
    for (let waited = 0; waited < 10000; waited += 10) {
      const last = list.lastElementChild;
      if (last && last.classList.contains('eg-assistant') && !last.classList.contains('eg-streaming')) break;
      await sleep(10);
    }
    const durationMs = performance.now() - start;
    performance.mark('bench-stream-end');
    await sleep(200);
    framing = false;
    const last = list.lastElementChild;
    return { durationMs, postingMs, deltas: sent, longTasks: longTasksSince(start), frameGaps, headings: last ? last.querySelectorAll('h2').length : 0 };
  };
})();
`;
