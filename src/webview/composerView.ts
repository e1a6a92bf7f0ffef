/**
 * The composer's attachments on screen (issue 17): chips above the message box, the @ picker (a
 * listbox the keyboard drives: arrows, Enter or Tab, Escape), Backspace at the start of the box
 * removes the last chip, the active editor's selection as a chip of its own and its file as a
 * one-click suggestion, files dropped from the Explorer, and the message's size before sending.
 */
import type { AttachmentRequest, HostToWebview, WebviewRequester } from '../protocol';
import { fitImage } from './imageFit';
import { addChip, chipLabel, droppedPaths, pickerQueryPath, messageEstimate, pickerQueryAt, pickerRows, type Chip, type PickerRow } from './composerModel';
import { Listbox } from './listbox';
import { t } from './strings';

type EditorContext = Extract<HostToWebview, { type: 'editorContext' }>;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

export class ComposerAttachments {
  /** Chips, suggestions and the size line: goes above the message box. */
  readonly element = el('div', 'eg-attachments');
  private readonly listbox: Listbox<PickerRow>;
  private readonly chipList = el('div', 'eg-chips');
  private readonly suggestions = el('div', 'eg-suggestions');
  private readonly estimate = el('div', 'eg-estimate eg-muted');
  private chips: Chip[] = [];
  private query: { start: number; query: string } | undefined;
  private queryId = 0;
  private editor: EditorContext | undefined;
  /** The user removed the selection chip: it stays away until the selection changes. */
  private dismissedSelection: string | undefined;
  private dismissedFile: string | undefined;
  /** The chips of the message being sent (given back if it fails). */
  private taken: Chip[] = [];

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly request: WebviewRequester,
    private readonly notify: (text: string) => void,
  ) {
    this.chipList.setAttribute('role', 'list');
    this.chipList.setAttribute('aria-label', t('composer.chips'));
    this.listbox = new Listbox<PickerRow>(input, 'eg-picker', t('composer.attachPicker'), (row) => this.choose(row), () => this.forgetQuery());
    this.element.append(this.chipList, this.suggestions, this.estimate);
    input.addEventListener('input', () => this.onInput());
    input.addEventListener('dragover', (event) => event.preventDefault());
    input.addEventListener('drop', (event) => this.onDrop(event));
    input.addEventListener('paste', (event) => this.onPaste(event));
    this.render();
  }

  /** The @ picker: goes above the composer. */
  get picker(): HTMLElement {
    return this.listbox.element;
  }

  /** Keys the picker or the chips take; true when the key was used (the composer must not act on it). */
  handleKey(event: KeyboardEvent): boolean {
    if (this.listbox.handleKey(event)) return true;
    if (event.key === 'Backspace' && this.input.selectionStart === 0 && this.input.selectionEnd === 0 && this.chips.length > 0) {
      this.remove(this.chips.length - 1);
      return true;
    }
    return false;
  }

  onEditorContext(context: EditorContext): void {
    this.editor = context;
    const selection = context.selection;
    const key = selection ? `${selection.path}:${selection.fromLine}-${selection.toLine}` : undefined;
    // Automatic chips follow the editor until the user removes them (evergreen.attachments.editorContext says which).
    this.chips = this.chips.filter((chip) => !chip.automatic);
    if (selection && context.autoAttach !== 'none' && key !== this.dismissedSelection) {
      // Gathered from the editor when sent: its unsaved text, not the file on disk.
      addChip(this.chips, { request: { kind: 'selection' }, label: `selection ${key}`, automatic: true });
    }
    if (context.file && context.autoAttach === 'fileAndSelection' && context.file !== this.dismissedFile) {
      addChip(this.chips, { request: { kind: 'file', path: context.file }, label: context.file, automatic: true });
    }
    if (key !== this.dismissedSelection) this.dismissedSelection = undefined;
    if (context.file !== this.dismissedFile) this.dismissedFile = undefined;
    this.render();
  }

  /** The chips for the message being sent; they are cleared, and given back by restore() if the send fails. */
  take(): AttachmentRequest[] {
    const requests = this.chips.map((chip) => chip.request);
    this.taken = this.chips;
    this.chips = [];
    // What the editor attaches by itself comes back for the next message (like the current-file context of other chats).
    if (this.editor) this.onEditorContext(this.editor);
    else this.render();
    return requests;
  }

  restore(): void {
    this.chips = [...this.taken, ...this.chips.filter((chip) => !this.taken.some((taken) => JSON.stringify(taken.request) === JSON.stringify(chip.request)))];
    this.taken = [];
    this.render();
  }

  /** Call after the message box changed by code (sent, restored). */
  refresh(): void {
    this.render();
  }

  private onInput(): void {
    const found = pickerQueryAt(this.input.value, this.input.selectionStart ?? this.input.value.length);
    this.query = found;
    this.renderEstimate();
    if (!found) {
      this.closePicker();
      return;
    }
    this.showRows(pickerRows(found.query, []));
    const queryId = ++this.queryId;
    void this.request('attachmentQuery', { query: pickerQueryPath(found.query) }).then((reply) => {
      // Only the newest query's answer, while the picker is still open for it.
      if (reply.ok && queryId === this.queryId && this.query) this.showRows(pickerRows(this.query.query, reply.value));
    });
  }

  private choose(row: PickerRow): void {
    if (this.query) {
      // The "@query" typed in the box becomes the chip.
      const caret = this.input.selectionStart ?? this.input.value.length;
      this.input.value = this.input.value.slice(0, this.query.start) + this.input.value.slice(caret);
      this.input.setSelectionRange(this.query.start, this.query.start);
    }
    const problem = addChip(this.chips, { request: row.request, label: row.label, ...(row.tokens !== undefined ? { tokens: row.tokens } : {}) });
    if (problem) this.notify(problem);
    this.closePicker();
    this.render();
    this.input.focus();
  }

  private remove(index: number): void {
    const [removed] = this.chips.splice(index, 1);
    if (removed?.automatic && removed.request.kind === 'selection') this.dismissedSelection = removed.label.replace(/^selection /, '');
    else if (removed?.automatic && removed.request.kind === 'file') this.dismissedFile = removed.request.path;
    this.notify(removed ? t('composer.removed', removed.label) : t('composer.removedUnnamed'));
    this.render();
    this.input.focus();
  }

  /** A pasted screenshot becomes an image chip; text pastes as usual. */
  private onPaste(event: ClipboardEvent): void {
    const images = [...(event.clipboardData?.files ?? [])].filter((file) => file.type.startsWith('image/'));
    if (images.length === 0) return;
    event.preventDefault();
    for (const file of images) this.addImage(file);
  }

  private addImage(file: File): void {
    const name = (file.name || t('composer.pastedImage')).slice(0, 120);
    fitImage(file).then(
      (fitted) => {
        const request: AttachmentRequest = { kind: 'image', name: fitted.resized ? `${name} (resized ${fitted.resized})` : name, data: fitted.data };
        const problem = addChip(this.chips, { request, label: chipLabel(request) });
        if (problem) this.notify(problem);
        this.render();
      },
      (error: unknown) => this.notify(t('composer.attachFailed', name, error instanceof Error ? error.message : String(error))),
    );
  }

  /** Files dragged from the Explorer or an editor tab arrive as file URIs (the host confines them when sent); dropped images are attached as images. */
  private onDrop(event: DragEvent): void {
    const dropped = [...(event.dataTransfer?.files ?? [])].filter((file) => file.type.startsWith('image/'));
    if (dropped.length > 0) {
      event.preventDefault();
      for (const file of dropped) this.addImage(file);
      return;
    }
    const root = this.editor?.root;
    const transfer = event.dataTransfer;
    if (!root || !transfer) return;
    const { inside, outside } = droppedPaths((type) => transfer.getData(type), root);
    if (inside.length === 0 && outside.length === 0) return;
    event.preventDefault();
    for (const file of outside) this.notify(t('composer.outsideWorkspace', file));
    for (const relative of inside) {
      const request: AttachmentRequest = { kind: 'file', path: relative };
      const problem = addChip(this.chips, { request, label: chipLabel(request) });
      if (problem) this.notify(problem);
    }
    this.render();
  }

  private showRows(rows: PickerRow[]): void {
    this.listbox.show(rows);
  }

  private closePicker(): void {
    this.listbox.close();
    this.forgetQuery();
  }

  /** A closed picker stays closed: the host's answer to the query still in flight is ignored. */
  private forgetQuery(): void {
    this.query = undefined;
    this.queryId++;
  }

  private render(): void {
    this.chipList.replaceChildren(
      ...this.chips.map((chip, index) => {
        const item = el('span', 'eg-chip');
        item.setAttribute('role', 'listitem');
        const remove = el('button', 'eg-chip-remove', '×');
        remove.type = 'button';
        remove.setAttribute('aria-label', t('composer.removeChip', chip.label));
        remove.addEventListener('click', () => this.remove(index));
        item.append(el('span', 'eg-chip-label', chip.label), remove);
        return item;
      }),
    );
    this.renderSuggestions();
    this.renderEstimate();
  }

  private renderSuggestions(): void {
    const file = this.editor?.file;
    const offered = file !== undefined && !this.chips.some((chip) => chip.request.kind === 'file' && chip.request.path === file && chip.request.fromLine === undefined);
    if (!offered) {
      this.suggestions.replaceChildren();
      return;
    }
    const add = el('button', 'eg-suggestion', `+ ${file}`);
    add.type = 'button';
    add.title = t('composer.attachEditorFile');
    add.addEventListener('click', () => {
      const request: AttachmentRequest = { kind: 'file', path: file };
      addChip(this.chips, { request, label: chipLabel(request) });
      this.render();
      this.input.focus();
    });
    this.suggestions.replaceChildren(add);
  }

  private renderEstimate(): void {
    const empty = this.chips.length === 0 && this.input.value.trim() === '';
    this.estimate.textContent = empty ? '' : messageEstimate(this.input.value, this.chips);
  }
}

