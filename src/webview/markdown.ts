/** Model text -> safe HTML: markdown-it without raw HTML, then DOMPurify as the final gate. */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });

// Links open through VS Code (the webview cannot navigate); drop anything but http(s)/mailto.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!/^(https?:|mailto:)/i.test(href)) node.removeAttribute('href');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(markdown.render(text), { FORBID_TAGS: ['style', 'img', 'form', 'input'], FORBID_ATTR: ['style'] });
}
