/**
 * A fetched HTML page as markdown, converted off the calling thread: Readability and Turndown on
 * linkedom are pure JavaScript and take about a second per megabyte, which on the extension host's
 * thread would freeze every extension (test/unit/web.htmlConversion.test.ts measures the event loop
 * meanwhile). The conversion runs in a worker of its own (htmlWorker.ts), ended when it answers,
 * on cancel, or past WEB_LIMITS.conversionTimeoutMs. Only types come from htmlToMarkdown.ts here,
 * so the libraries stay out of the main bundles.
 */
import { ToolExecutionError } from '../errors';
import { runWorkerTask, WorkerTaskError, type WorkerScript } from '../workerTask';
import type { PageMarkdown } from './htmlToMarkdown';
import { WEB_LIMITS } from './limits';

export interface HtmlConversionInput {
  html: string;
  /** Where the page came from: relative links are resolved against it. */
  url: string;
}

const HTML_WORKER: WorkerScript = { source: 'web/htmlWorker.ts', bundle: 'htmlWorker.js' };

/**
 * `html` as markdown, computed in a worker. Rejects with an abort error on cancel, and with a
 * ToolExecutionError the model can act on when the page cannot be converted (too slow, or the
 * worker failed).
 */
export async function convertHtmlOffThread(html: string, url: string, signal: AbortSignal, budgetMs: number = WEB_LIMITS.conversionTimeoutMs): Promise<PageMarkdown> {
  try {
    return await runWorkerTask<HtmlConversionInput, PageMarkdown>(HTML_WORKER, { html, url }, { signal, budgetMs });
  } catch (error) {
    if (!(error instanceof WorkerTaskError)) throw error;
    const size = `${html.length.toLocaleString('en-US')} characters of HTML`;
    throw new ToolExecutionError(`The page was fetched but not shown: converting its ${size} to markdown failed (${error.message}). Try a smaller page of the site, or its plain-text or raw version.`);
  }
}
