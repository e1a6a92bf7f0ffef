/**
 * The composer's mode picker (issue 28): a labelled native select, so the keyboard drives it as any
 * select (Tab to it, arrows or type-ahead, Enter), the current mode is always shown, and a screen
 * reader reads its label and value. Each mode's one line is its option's title and the select's
 * description. Picking asks the host, which answers with the picker as it stands (a refusal puts
 * the shown mode back).
 */
import type { ModePicker, WebviewRequester } from '../protocol';
import { t } from './strings';

export class ModePickerView {
  readonly element: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly description: HTMLElement;
  private picker: ModePicker | undefined;
  private busy = false;

  constructor(
    el: <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => HTMLElementTagNameMap[K],
    private readonly request: WebviewRequester,
    private readonly announce: (text: string) => void,
  ) {
    this.element = el('div', 'eg-mode');
    const label = el('label', 'eg-mode-label', t('mode.label'));
    this.select = el('select', 'eg-mode-select');
    this.select.id = 'eg-mode-select';
    label.htmlFor = this.select.id;
    this.description = el('span', 'eg-sr-only');
    this.description.id = 'eg-mode-description';
    this.select.setAttribute('aria-describedby', this.description.id);
    this.select.addEventListener('change', () => this.choose(this.select.value));
    this.element.append(label, this.select, this.description);
    this.element.hidden = true;
  }

  /** The picker from the host's state (every mode and the current one). */
  update(picker: ModePicker): void {
    this.picker = picker;
    this.render();
  }

  /**
   * With every render: a running turn disables the picker (the mode cannot change until it ends),
   * and the mode the session's newest event named is shown (undefined: none since the state).
   */
  sync(busy: boolean, mode: string | undefined): void {
    this.busy = busy;
    this.select.disabled = busy;
    if (!this.picker || mode === undefined || this.picker.current === mode) return;
    this.picker = { ...this.picker, current: mode };
    this.render();
  }

  private choose(mode: string): void {
    const before = this.picker?.current;
    if (!this.picker || mode === before) return;
    this.select.disabled = true;
    void this.request('setMode', { mode }).then((reply) => {
      this.select.disabled = this.busy;
      if (reply.ok) {
        this.update(reply.value);
        this.announce(`${reply.value.current} mode.`);
      } else {
        this.render(); // The host refused (the error is in the chat): the select shows the mode that is on.
      }
    });
  }

  private render(): void {
    const picker = this.picker;
    this.element.hidden = !picker || picker.options.length === 0;
    if (!picker) return;
    this.select.replaceChildren(
      ...picker.options.map((option) => {
        const item = document.createElement('option');
        item.value = option.name;
        item.textContent = option.name;
        item.title = option.source ? `${option.description} (${option.source})` : option.description;
        item.selected = option.name === picker.current;
        return item;
      }),
    );
    this.select.value = picker.current;
    const current = picker.options.find((option) => option.name === picker.current);
    this.description.textContent = current ? current.description : '';
    this.select.title = current?.description ?? '';
  }
}
