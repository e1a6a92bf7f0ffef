import * as vscode from 'vscode';
import { usedPercent } from '../core/context/gauge';
import type { GaugeState } from '../protocol';
import { Disposable } from './disposable';

/** Mirrors the gauge's percent in the status bar; clicking it reveals the chat. */
export class ContextStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('evergreen.context', vscode.StatusBarAlignment.Right, 100));

  constructor() {
    super();
    this.item.name = 'Evergreen Context';
    this.item.command = 'evergreen.chat.focus';
    this.update(undefined);
    this.item.show();
  }

  update(gauge: GaugeState | undefined): void {
    if (!gauge) {
      this.item.text = '$(pulse) Evergreen';
      this.item.tooltip = 'Evergreen: no conversation yet';
      return;
    }
    const effective = gauge.window - gauge.outputReserve;
    this.item.text = `$(pulse) ${usedPercent(gauge)}%`;
    this.item.tooltip = `Evergreen context: ${gauge.usedTokens.toLocaleString()} of ${effective.toLocaleString()} tokens (auto-compact at ${gauge.autoCompactThreshold.toLocaleString()})`;
  }
}
