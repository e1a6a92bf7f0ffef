/** Model text -> safe HTML: markdown-it without raw HTML, then DOMPurify as the final gate. */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { markdownBlocks } from './markdownBlocks';
import { fileReferences } from './fileReferences';

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false }).use(fileReferences);

// Links are opened by the host (which asks before a web link and opens workspace files only): keep
// http(s) links and scheme-less relative paths, drop every other scheme (javascript:, command:,
// vscode:, file:, data:, …) and protocol-relative or absolute paths.
export function isAllowedLink(href: string): boolean {
  if (/^https?:\/\//i.test(href)) return true;
  // "a.ts:12" is a file and line, not a scheme. Control characters never belong in a link.
  // eslint-disable-next-line no-control-regex
  return href !== '' && !/^[a-z][a-z0-9+.-]*:(?!\d+$)/i.test(href) && !href.startsWith('/') && !href.startsWith('\\') && !/[\u0000-\u001f]/.test(href);
}

// DOMPurify's own URI filter would drop "src/a.ts:12" (it reads "src/a.ts:" as a scheme): links this
// rule vetted are kept, and everything else still goes through DOMPurify.
DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
  if (node.tagName === 'A' && data.attrName === 'href' && isAllowedLink(data.attrValue)) data.forceKeepAttr = true;
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!isAllowedLink(href)) node.removeAttribute('href');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(markdown.render(text), { FORBID_TAGS: ['style', 'img', 'form', 'input'], FORBID_ATTR: ['style'] });
}

/** Block texts each streaming container was last rendered from (see markdownBlocks.ts). */
const renderedBlocks = new WeakMap<HTMLElement, string[]>();

/**
 * Renders a reply that is still streaming into `container`, one child per markdown block: blocks
 * whose text did not change keep their elements, so a delta costs one block's parse, sanitize and
 * layout instead of the whole reply's.
 */
export function renderMarkdownBlocks(container: HTMLElement, text: string): void {
  const blocks = markdownBlocks(text);
  const previous = renderedBlocks.get(container) ?? [];
  let kept = 0;
  while (kept < blocks.length && kept < previous.length && kept < container.children.length && blocks[kept] === previous[kept]) kept++;
  while (container.children.length > kept) container.lastElementChild!.remove();
  for (const block of blocks.slice(kept)) {
    const element = document.createElement('div');
    element.innerHTML = renderMarkdown(block); // Sanitized by renderMarkdown.
    container.append(element);
  }
  renderedBlocks.set(container, blocks);
}
