/**
 * The insights panel alone in Chromium: its own HTML (as src/extension/webviewHtml.ts writes it:
 * #insights-root, media/insights.css, dist/insights.js, a CSP without inline script), VS Code's
 * theme variables for a dark or a light theme, and a script that stands in for the host (records
 * what the panel posts, measures a render). For the insights e2e test and bench/insights.ts.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { InsightsView } from '../../src/protocol';

export const ORIGIN = 'http://evergreen.insights';

/** The variables the panel reads, with the values of VS Code's Dark Modern and Light Modern themes. */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    variables: {
      'font-family': 'system-ui, sans-serif',
      'font-size': '13px',
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'panel-border': '#2b2b2b',
      'editorWidget-border': '#313131',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      'button-border': '#ffffff12',
      focusBorder: '#0078d4',
      'textLink-foreground': '#4daafc',
      errorForeground: '#f85149',
      'charts-foreground': '#cccccc',
      'charts-red': '#f14c4c',
      'charts-blue': '#3794ff',
      'charts-yellow': '#cca700',
      'charts-orange': '#d18616',
      'charts-green': '#89d185',
      'charts-purple': '#b180d7',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    variables: {
      'font-family': 'system-ui, sans-serif',
      'font-size': '13px',
      foreground: '#3b3b3b',
      descriptionForeground: '#3b3b3b',
      'editor-background': '#ffffff',
      'panel-border': '#e5e5e5',
      'editorWidget-border': '#e5e5e5',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      'button-border': '#0000001a',
      focusBorder: '#005fb8',
      'textLink-foreground': '#005fb8',
      errorForeground: '#f85149',
      'charts-foreground': '#616161',
      'charts-red': '#e51400',
      'charts-blue': '#1a85ff',
      'charts-yellow': '#bf8803',
      'charts-orange': '#d18616',
      'charts-green': '#388a34',
      'charts-purple': '#652d90',
    },
  },
} as const;

export type ThemeName = keyof typeof THEMES;

function themeCss(theme: ThemeName): string {
  const variables = Object.entries(THEMES[theme].variables).map(([name, value]) => `--vscode-${name}: ${value};`);
  return `:root { ${variables.join(' ')} }`;
}

function indexHtml(theme: ThemeName): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${ORIGIN}; script-src ${ORIGIN}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link href="${ORIGIN}/theme.css" rel="stylesheet">
  <link href="${ORIGIN}/insights.css" rel="stylesheet">
  <title>Evergreen Insights</title>
  <script src="${ORIGIN}/host.js"></script>
</head>
<body class="${THEMES[theme].bodyClass}">
  <div id="insights-root"></div>
  <script src="${ORIGIN}/insights.js"></script>
</body>
</html>`;
}

/** Stands in for the host: records what the panel posts; `show` posts a view and resolves once it is drawn and painted. */
const HOST_JS = `(() => {
  'use strict';
  const host = { posted: [] };
  window.__host = host;
  window.acquireVsCodeApi = () => ({ postMessage: (message) => host.posted.push(message) });
  host.show = (view) => new Promise((resolve) => {
    const t0 = performance.now();
    const observer = new MutationObserver(() => {
      if (document.body.dataset.requests !== String(view.insights.requests.count)) return;
      observer.disconnect();
      const built = performance.now();
      // The first task after the next frame: style, layout and paint are done.
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve({ builtMs: built - t0, paintedMs: performance.now() - t0 });
        channel.port2.postMessage(0);
      });
    });
    observer.observe(document.body, { attributes: true, subtree: true, childList: true });
    window.postMessage({ type: 'insights', view }, '*');
  });
})();`;

export interface HostWindow {
  __host: {
    posted: Array<{ type: string; table?: string }>;
    show(view: InsightsView): Promise<{ builtMs: number; paintedMs: number }>;
  };
}

/** A new page of `context` with the panel loaded and ready (it said `ready`), in `theme`. */
export async function loadInsightsPage(context: BrowserContext, files: { bundle: string; css: string }, theme: ThemeName = 'dark'): Promise<{ page: Page; errors: string[] }> {
  const served: Record<string, { body: string; contentType: string }> = {
    '/index.html': { body: indexHtml(theme), contentType: 'text/html' },
    '/host.js': { body: HOST_JS, contentType: 'text/javascript' },
    '/insights.js': { body: files.bundle, contentType: 'text/javascript' },
    '/insights.css': { body: files.css, contentType: 'text/css' },
    '/theme.css': { body: themeCss(theme), contentType: 'text/css' },
  };
  await context.route(`${ORIGIN}/**`, (route) => {
    const file = served[new URL(route.request().url()).pathname];
    return file ? route.fulfill({ status: 200, body: file.body, contentType: file.contentType }) : route.fulfill({ status: 404, body: '' });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (window as unknown as HostWindow).__host.posted.some((message) => message.type === 'ready'), undefined, { timeout: 30_000 });
  return { page, errors };
}
