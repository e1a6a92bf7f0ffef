/**
 * The worker thread that turns one HTML page into markdown (htmlToMarkdown.ts), so parsing and
 * converting a large page (seconds for a few megabytes) never blocks the extension host or the CLI.
 * Bundled as its own file with the parser and converters (dist/htmlWorker.js, esbuild.mjs): the
 * main bundles do not carry them. htmlConversion.ts starts it for one page.
 */
import { serveWorkerTask } from '../workerTask';
import { htmlToMarkdown } from './htmlToMarkdown';
import type { HtmlConversionInput } from './htmlConversion';

serveWorkerTask((input: HtmlConversionInput) => htmlToMarkdown(input.html, input.url));
