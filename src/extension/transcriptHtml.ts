/**
 * The archived transcript's markdown as the HTML of its rendered tab (transcriptView.ts). The
 * markdown holds model text, so the rendering is what keeps it inert, whatever the user's
 * markdown-preview settings: raw HTML is shown as text, an image is a link (nothing loads from
 * anywhere), and a link may only go where the tab can open it (the host checks each click again).
 */
import MarkdownIt from 'markdown-it';
import { TRANSCRIPT_SCHEME } from './transcriptScheme';

/** The schemes a transcript's links may use: its own file links, other transcripts, the web. */
export const TRANSCRIPT_LINK_SCHEMES: readonly string[] = ['file', TRANSCRIPT_SCHEME, 'https', 'http', 'mailto'];

/** Whether `href` is a link the rendered transcript keeps (any other stays text). */
export function isTranscriptLink(href: string): boolean {
  const trimmed = href.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  // file://host/share names another machine: opening it would connect there (on Windows, with the user's credentials).
  if (scheme === 'file' && /^file:\/\/[^/]/i.test(trimmed)) return false;
  return scheme !== undefined && TRANSCRIPT_LINK_SCHEMES.includes(scheme);
}

function transcriptMarkdownIt(): MarkdownIt {
  // html: false renders <script>, <img> and the rest of raw HTML as visible text.
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.validateLink = isTranscriptLink;
  // An image is shown as a link to it: no request leaves the tab, even for https: images in model text.
  md.renderer.rules.image = (tokens, index, _options, _env, self) => {
    const token = tokens[index]!;
    const label = self.renderInlineAsText(token.children ?? [], md.options, {}) || 'image';
    return `<a href="${md.utils.escapeHtml(token.attrGet('src') ?? '')}">${md.utils.escapeHtml(`[image: ${label}]`)}</a>`;
  };
  // Headings carry their source line, so the tab can open at a compaction boundary (RenderedTranscript.compactionLines).
  md.core.ruler.push('evergreen_heading_lines', (state) => {
    for (const token of state.tokens) if (token.type === 'heading_open' && token.map) token.attrSet('data-line', String(token.map[0]));
  });
  return md;
}

/**
 * Past this many characters of markdown a transcript opens as source instead. Measured
 * (bench/transcriptView.ts, bench/RESULTS.md) on a shared 2-core machine: a 5 MB transcript's 1.8
 * million characters become HTML in 0.6 s in the extension host (synchronous: the host waits) and
 * lay out in 1.4 s in Chromium (50,000 elements); a 10 MB one's 3.5 million take 0.6 s and 3.4 s;
 * a 50 MB one's 12 million 1.6 s and 6 s (14 s under load). The source editor opens any of them at
 * once, and searches them.
 */
export const RENDERED_TRANSCRIPT_MAX_CHARS = 2_000_000;

let renderer: MarkdownIt | undefined;

export function transcriptHtml(markdown: string): string {
  renderer ??= transcriptMarkdownIt();
  return renderer.render(markdown);
}
