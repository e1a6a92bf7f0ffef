import * as vscode from 'vscode';
import type { GaugeState } from '../protocol';
import { Disposable } from './disposable';

/** Mirrors the gauge's percent in the status bar; clicking it reveals the chat. */
export class ContextStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('evergreen.context', vscode.StatusBarAlignment.Right, 100));

  constructor() {
    super();
    this.item.name = vscode.l10n.t('Evergreen Context');
    this.item.command = 'evergreen.chat.focus';
    this.update(undefined);
    this.item.show();
  }

  update(gauge: GaugeState | undefined): void {
    if (!gauge) {
      this.item.text = '$(pulse) Evergreen';
      this.item.tooltip = vscode.l10n.t('Evergreen: no conversation yet');
      this.item.backgroundColor = undefined;
      return;
    }
    // The core's reading: the same whole-window percent and level the panel shows.
    const { reading } = gauge;
    this.item.text = `$(pulse) ${reading.level === 'over' ? '>100' : reading.percent}%`;
    this.item.tooltip = vscode.l10n.t('{0}\n\nClick to open the Evergreen chat.', reading.tooltip);
    this.item.backgroundColor =
      reading.level === 'over'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : reading.level === 'near' || reading.level === 'past'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }
}
