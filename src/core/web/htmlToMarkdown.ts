/**
 * A web page as readable markdown: the main content found by Mozilla's Readability (Firefox's
 * Reader View), converted by Turndown with GitHub-flavoured tables, both on linkedom's DOM. None of
 * them runs a script or loads a resource: the page's scripts, styles and frames are text here.
 * Chosen by quality and bundle size (docs/web.md and the merge report give the numbers): jsdom is
 * several megabytes; Turndown's own DOM (domino) breaks Readability; node-html-markdown brings a
 * second parser. linkedom's CSS parser is left out of the bundles (scripts/stubs/cssomnom-parse.cjs).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

export interface PageMarkdown {
  title: string;
  markdown: string;
  /** Readability found the main content; false: the whole body, minus navigation and scripts, was converted. */
  extracted: boolean;
}

/** What never carries a page's content, removed before converting a page Readability could not read. */
const CHROME_SELECTOR = 'script, style, noscript, template, svg, canvas, iframe, object, embed, nav, header, footer, aside, form, button, input, select, textarea, link, meta';

type LinkedomWindow = ReturnType<typeof parseHTML>;
type DomElement = LinkedomWindow['document']['body'];

let turndown: TurndownService | undefined;

function converter(): TurndownService {
  if (turndown) return turndown;
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', linkStyle: 'inlined' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe']);
  return (turndown = service);
}

/**
 * linkedom builds no HTMLTableElement, so a table has no `rows`, which the table rules read (the DOM
 * standard's rows: the table's own rows, then its head's, bodies' and foot's, in order).
 */
function addTableRows(window: LinkedomWindow): void {
  const proto = window.HTMLElement.prototype as object;
  if (Object.prototype.hasOwnProperty.call(proto, 'rows')) return;
  Object.defineProperty(proto, 'rows', {
    configurable: true,
    get(this: DomElement) {
      if (this.tagName !== 'TABLE') return undefined;
      const rows: DomElement[] = [];
      for (const child of Array.from(this.children)) {
        if (child.tagName === 'TR') rows.push(child as DomElement);
        else if (child.tagName === 'THEAD' || child.tagName === 'TBODY' || child.tagName === 'TFOOT') for (const row of Array.from(child.children)) if (row.tagName === 'TR') rows.push(row as DomElement);
      }
      return rows;
    },
  });
}

function parse(html: string, url: string): LinkedomWindow {
  const window = parseHTML(html);
  addTableRows(window);
  // Readability makes links absolute against the document's address: the model can fetch them.
  for (const name of ['baseURI', 'documentURI', 'URL']) Object.defineProperty(window.document, name, { configurable: true, value: url });
  return window;
}

/** `html` (a whole page) as markdown; `url` is where it came from (relative links are resolved against it). */
export function htmlToMarkdown(html: string, url: string): PageMarkdown {
  const page = parse(html, url);
  const pageTitle = (page.document.title ?? '').trim();
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(page.document as unknown as Document, { keepClasses: true }).parse();
  } catch {
    article = null; // A page Readability trips over is converted whole below.
  }
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    const content = parse(`<!doctype html><html><body>${article.content}</body></html>`, url);
    return { title: (article.title ?? pageTitle).trim(), markdown: tidy(converter().turndown(content.document.body as unknown as HTMLElement)), extracted: true };
  }
  const whole = parse(html, url);
  for (const element of Array.from(whole.document.querySelectorAll(CHROME_SELECTOR))) element.remove();
  const body = whole.document.body ?? whole.document.documentElement;
  return { title: pageTitle, markdown: tidy(converter().turndown(body as unknown as HTMLElement)), extracted: false };
}

/** At most one blank line in a row, no trailing spaces: a page's layout whitespace costs tokens and says nothing. */
function tidy(markdown: string): string {
  return markdown.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}
