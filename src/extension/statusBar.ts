import * as vscode from 'vscode';
import { gaugeTooltipText, type GaugeState } from '../protocol';
import { Disposable } from './disposable';

/** Mirrors the shown chat's gauge percent in the status bar, and how many chats work or wait (issue 31); clicking it reveals the chat. */
export class ContextStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('evergreen.context', vscode.StatusBarAlignment.Right, 100));
  private gauge: GaugeState | undefined;
  /** "2 working, 1 waiting" over all open chats; '' when none. */
  private activity = '';

  constructor() {
    super();
    this.item.name = vscode.l10n.t('Evergreen Context');
    this.item.command = 'evergreen.chat.focus';
    this.update(undefined);
    this.item.show();
  }

  update(gauge: GaugeState | undefined): void {
    this.gauge = gauge;
    this.render();
  }

  setActivity(activity: string): void {
    if (activity === this.activity) return;
    this.activity = activity;
    this.render();
  }

  private render(): void {
    const { gauge } = this;
    const chats = this.activity === '' ? '' : ` · ${this.activity}`;
    const chatsLine = this.activity === '' ? '' : `\n${vscode.l10n.t('Chats: {0}.', this.activity)}`;
    if (!gauge) {
      this.item.text = `$(pulse) Evergreen${chats}`;
      this.item.tooltip = `${vscode.l10n.t('Evergreen: no conversation yet')}${chatsLine}`;
      this.item.backgroundColor = undefined;
      return;
    }
    // The core's reading: the same whole-window percent and level the panel shows.
    const { reading } = gauge;
    this.item.text = `$(pulse) ${reading.level === 'over' ? '>100' : reading.percent}%${chats}`;
    this.item.tooltip = vscode.l10n.t('{0}\n\nClick to open the Evergreen chat.', `${gaugeTooltipText(reading.tooltip)}${chatsLine}`);
    this.item.backgroundColor =
      reading.level === 'over'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : reading.level === 'near' || reading.level === 'past'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }
}
