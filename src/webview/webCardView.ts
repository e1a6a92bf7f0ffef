/**
 * A fetched page's tool card (web_fetch): under the usual card (the call, its status, the result on
 * demand), where the page came from after redirects, its HTTP status, type and size, and a link to
 * the saved copy when tier 0 kept the page whole on disk. Browser code; main.ts passes in the few
 * helpers it shares, so this module has no side effects.
 */
import { visibleCommandLine } from '../protocol';
import type { ChatItem, WebPageFacts } from './chatModel';
import { t } from './strings';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

export interface WebCardDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** Asks the host to open a saved output read-only (it opens only this session's). */
  openSavedOutput(file: string): void;
}

/** 950 bytes, 48.2 KB, 3.1 MB: a page's size at a glance (the exact count is on hover). */
export function pageSize(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? t('web.oneByte') : t('web.bytes', bytes);
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The page's facts in words, in the order the card shows them (also what a screen reader hears). */
export function pageFacts(web: WebPageFacts): string[] {
  const facts = [t('web.http', web.status)];
  const mediaType = web.contentType?.split(';')[0]?.trim();
  if (mediaType) facts.push(mediaType);
  facts.push(web.truncated ? t('web.readCut', pageSize(web.bytes)) : pageSize(web.bytes));
  if (web.fromCache) facts.push(t('web.fromCache'));
  return facts;
}

/** The card: `details` (main.ts's usual card body) with the page's line under it. */
export function renderWebCard(details: HTMLElement, item: ToolItem, web: WebPageFacts, deps: WebCardDeps): HTMLElement {
  const { el } = deps;
  const facts = pageFacts(web);
  const card = el('div', `eg-tool eg-web eg-tool-${item.status}`);
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', t('web.label', web.url, facts.join(', ')));
  details.className = 'eg-tool-body';

  const page = el('div', 'eg-web-page');
  // The URL is the server's answer as much as the model's: shown with any invisible character made visible.
  const url = el('span', 'eg-web-url', visibleCommandLine(web.url));
  url.title = web.redirects?.length ? t('web.redirectedFrom', web.redirects.join(' → ')) : t('web.fromUrl');
  page.append(url);
  const figures = el('span', `eg-web-facts${web.status >= 400 ? ' eg-web-error' : ''}`, facts.join(' · '));
  figures.title = t(web.truncated ? 'web.bytesReadCap' : 'web.bytesRead', web.bytes.toLocaleString('en-US'));
  page.append(figures);
  if (web.redirects?.length) page.append(el('span', 'eg-web-redirects', web.redirects.length === 1 ? t('web.afterRedirect') : t('web.afterRedirects', web.redirects.length)));
  const file = item.savedOutput;
  if (file !== undefined) {
    const saved = el('button', 'eg-link eg-saved-output', t('web.savedCopy'));
    saved.type = 'button';
    saved.title = t('web.savedCopyTitle', file);
    saved.setAttribute('aria-label', t('web.savedCopyAria'));
    saved.addEventListener('click', () => deps.openSavedOutput(file));
    page.append(saved);
  }
  card.append(details, page);
  return card;
}
