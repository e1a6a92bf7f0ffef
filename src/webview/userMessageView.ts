import { IMAGE_MEDIA_TYPES, type AttachmentChip, type WebviewRequester } from '../protocol';
import type { ChatItem } from './chatModel';
import { t } from './strings';

type El = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => HTMLElementTagNameMap[K];

/** A user message: what it carried (attachment labels), its words, and Restore… when it has a checkpoint (issue 17). */
export function renderUserMessage(item: Extract<ChatItem, { kind: 'user' }>, el: El, send: WebviewRequester, isLast: boolean): HTMLElement {
  const element = el('div', 'eg-message eg-user');
  if (item.attachments?.length) {
    const thumbnails = item.attachments.flatMap((chip) => thumbnail(chip, el) ?? []);
    if (thumbnails.length > 0) {
      const row = el('div', 'eg-user-thumbnails');
      row.append(...thumbnails);
      element.append(row);
    }
    element.append(el('div', 'eg-user-attachments', item.attachments.map((chip) => chip.label).join(' · ')));
  }
  element.append(el('span', 'eg-user-text', item.text));
  const checkpoint = item.checkpoint;
  if (checkpoint !== undefined) {
    const restore = el('button', 'eg-restore', t('user.restore'));
    restore.type = 'button';
    restore.title = t('user.restoreTitle');
    restore.addEventListener('click', () => void send('restoreCheckpoint', { checkpoint }));
    element.append(restore);
    if (isLast) {
      // Edit and resend: the conversation goes back to before this message, the files stay.
      const edit = el('button', 'eg-restore', t('user.edit'));
      edit.type = 'button';
      edit.title = t('user.editTitle');
      edit.addEventListener('click', () => void send('editMessage', { checkpoint }));
      element.append(edit);
    }
  }
  return element;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * An image attachment as a thumbnail (CSS bounds its size; a click shows it at full width). Only a
 * known image type with base64 bytes becomes a data URL, so nothing else can reach `src`.
 */
function thumbnail(chip: AttachmentChip, el: El): HTMLElement | undefined {
  const image = chip.image;
  if (!image || !IMAGE_MEDIA_TYPES.includes(image.mediaType) || !BASE64.test(image.data)) return undefined;
  const picture = el('img', 'eg-thumbnail');
  picture.alt = chip.label;
  picture.title = t('user.imageTitle', chip.label);
  picture.src = `data:${image.mediaType};base64,${image.data}`;
  picture.tabIndex = 0;
  const toggle = () => picture.classList.toggle('eg-thumbnail-open');
  picture.addEventListener('click', toggle);
  picture.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      toggle();
    }
  });
  return picture;
}
