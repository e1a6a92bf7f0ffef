/**
 * The / picker on screen (issue 28): typing `/` at the start of the message lists the commands the
 * host knows (built-in and from command files), typing narrows them, the keyboard moves and chooses
 * (listbox.ts), and a chosen command is written into the box with a space after it, ready for its
 * arguments; Enter then sends it.
 */
import type { WebviewRequester } from '../protocol';
import { Listbox } from './listbox';
import { completeSlash, slashQueryAt, slashRows, type SlashRow } from './slashModel';
import { t } from './strings';

export class SlashPicker {
  private readonly listbox: Listbox<SlashRow>;
  /** The typed name's end, while the picker is open for it. */
  private end: number | undefined;
  private queryId = 0;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly request: WebviewRequester,
    /** Told when the box's text changed by a choice (the draft and the size line follow it). */
    private readonly changed: () => void,
  ) {
    this.listbox = new Listbox<SlashRow>(input, 'eg-slash-picker', t('slash.picker'), (row) => this.choose(row), () => this.forget());
    input.addEventListener('input', () => this.onInput());
  }

  get element(): HTMLElement {
    return this.listbox.element;
  }

  /** Keys the open picker takes; true when it used the key. */
  handleKey(event: KeyboardEvent): boolean {
    return this.listbox.handleKey(event);
  }

  private onInput(): void {
    const found = slashQueryAt(this.input.value, this.input.selectionStart ?? this.input.value.length);
    if (!found) {
      this.listbox.close();
      this.forget();
      return;
    }
    this.end = found.end;
    const queryId = ++this.queryId;
    void this.request('commandQuery', { query: found.query }).then((reply) => {
      // Only the newest query's answer, while the picker is still wanted for it.
      if (reply.ok && queryId === this.queryId && this.end !== undefined) this.listbox.show(slashRows(reply.value));
    });
  }

  private choose(row: SlashRow): void {
    const completed = completeSlash(this.input.value, this.end ?? this.input.value.length, row.name);
    this.input.value = completed.text;
    this.input.setSelectionRange(completed.caret, completed.caret);
    this.listbox.close();
    this.forget();
    this.changed();
    this.input.focus();
  }

  /** A closed picker stays closed: an answer still on its way is ignored. */
  private forget(): void {
    this.end = undefined;
    this.queryId++;
  }
}
