/**
 * A picker over the message box (the @ picker, the / picker): a listbox the keyboard drives while
 * the focus stays in the box (arrows move, Enter or Tab choose, Escape closes), with the active row
 * announced through `aria-activedescendant`, and a row chosen with the mouse too.
 */

export interface ListboxRow {
  label: string;
  detail: string;
}

export class Listbox<Row extends ListboxRow> {
  readonly element: HTMLDivElement;
  private rows: Row[] = [];
  private active = 0;

  /** `id`: the listbox's element id, its rows' ids start with it. */
  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly id: string,
    label: string,
    private readonly onChoose: (row: Row) => void,
    /** Told when Escape closed it (the owner forgets its query). */
    private readonly onEscape: () => void = () => undefined,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'eg-picker';
    this.element.id = id;
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', label);
    this.element.hidden = true;
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  /** Keys the open listbox takes; true when it used the key (the box must not act on it). */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (this.rows.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      this.active = (this.active + (event.key === 'ArrowDown' ? 1 : this.rows.length - 1)) % this.rows.length;
      this.render();
      return true;
    }
    if (this.rows.length > 0 && (event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey) {
      this.onChoose(this.rows[this.active]!);
      return true;
    }
    if (event.key === 'Escape') {
      this.close();
      this.onEscape();
      return true;
    }
    return false;
  }

  show(rows: Row[]): void {
    this.rows = rows;
    this.active = Math.min(this.active, Math.max(0, rows.length - 1));
    this.element.hidden = rows.length === 0;
    // No aria-expanded: a textarea may not carry it (axe: a critical violation); the listbox is
    // announced through aria-controls and its active row through aria-activedescendant.
    this.input.setAttribute('aria-controls', this.id);
    this.render();
  }

  close(): void {
    this.rows = [];
    this.active = 0;
    this.element.hidden = true;
    this.input.removeAttribute('aria-activedescendant');
  }

  private render(): void {
    const el = (tag: string, className: string, text: string) => {
      const element = document.createElement(tag);
      element.className = className;
      element.textContent = text;
      return element;
    };
    this.element.replaceChildren(
      ...this.rows.map((row, index) => {
        const option = document.createElement('div');
        option.className = `eg-picker-row${index === this.active ? ' eg-active' : ''}`;
        option.id = `${this.id}-${index}`;
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', String(index === this.active));
        option.append(el('span', 'eg-picker-label', row.label), el('span', 'eg-muted', ` ${row.detail}`));
        option.addEventListener('mousedown', (event) => {
          event.preventDefault(); // keep the focus in the message box
          this.onChoose(row);
        });
        return option;
      }),
    );
    if (this.open) this.input.setAttribute('aria-activedescendant', `${this.id}-${this.active}`);
  }
}
