/**
 * A memory call's card (issue 28): memory writes never ask, so each one shows what it did in
 * words (saved, updated, moved, deleted), the note's path, the first lines written, and a way to
 * the memory folder where the user reviews and edits what the model keeps. Everything shown is
 * the model's text: set as text, never as markup.
 */
import type { ToolCard, WebviewStringKey } from '../protocol';
import type { ChatItem } from './chatModel';
import { toolStatusText } from './chatModel';
import { t } from './strings';

type El = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => HTMLElementTagNameMap[K];
type MemoryCard = Extract<ToolCard, { kind: 'memory' }>;

const TITLES: Readonly<Record<MemoryCard['command'], WebviewStringKey>> = {
  view: 'memory.view',
  create: 'memory.create',
  str_replace: 'memory.str_replace',
  insert: 'memory.insert',
  delete: 'memory.delete',
  rename: 'memory.rename',
};

/** "Memory saved /memories/a.md", "Memory moved /memories/a.md → /memories/b.md". */
export function memoryCardTitle(card: MemoryCard): string {
  return t(TITLES[card.command], card.newPath ? `${card.path} → ${card.newPath}` : card.path);
}

export function renderMemoryCard(item: Extract<ChatItem, { kind: 'tool' }>, card: MemoryCard, el: El, openMemory: () => void): HTMLElement {
  const element = el('div', `eg-memory eg-memory-${item.status}`);
  element.setAttribute('role', 'group');
  element.setAttribute('aria-label', memoryCardTitle(card));
  const head = el('div', 'eg-memory-head');
  head.append(el('span', 'eg-memory-title', memoryCardTitle(card)), el('span', 'eg-tool-status', toolStatusText(item)));
  const open = el('button', 'eg-link eg-memory-open', t('memory.open'));
  open.type = 'button';
  open.title = t('memory.openTitle');
  open.addEventListener('click', openMemory);
  head.append(open);
  element.append(head);
  if (card.preview !== undefined && item.status !== 'error') element.append(el('pre', 'eg-memory-preview', card.preview));
  // A refused write says why (a path outside /memories, a size cap, read-only here).
  if (item.status === 'error' && item.output) element.append(el('div', 'eg-memory-error', item.output));
  return element;
}
