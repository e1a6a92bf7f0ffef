import * as l10n from '@vscode/l10n';
import type * as vscode from 'vscode';
import type { WebDomainMemory } from '../core/web/access';
import { settingName } from '../frontends/settingsTable';

// A workspaceState key, not a setting: written only by the user's "always" on a web approval card.
const WEB_DOMAINS_KEY = 'webAllowedHosts';

/**
 * The hosts the user allowed "always" for this workspace (web_fetch asks for the others). Kept in
 * the workspace's state, which VS Code stores outside the folder: nothing in a repository can add to
 * it. "Evergreen: Web Access" (webAccessCommand.ts) lists and forgets them through this class; a
 * running session reads the same state, so a host forgotten there is asked for again at once.
 */
export class WorkspaceWebDomains implements WebDomainMemory {
  constructor(private readonly state: vscode.Memento) {}

  list(): readonly string[] {
    const value = this.state.get<unknown>(WEB_DOMAINS_KEY);
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  }

  async remember(host: string): Promise<void> {
    const hosts = new Set(this.list());
    hosts.add(host.toLowerCase());
    await this.state.update(WEB_DOMAINS_KEY, [...hosts].sort());
  }

  async forget(host: string): Promise<void> {
    await this.state.update(WEB_DOMAINS_KEY, this.list().filter((entry) => entry !== host.toLowerCase()));
  }
}

/** One row of "Evergreen: Web Access": a host this workspace allowed (it can be forgotten), or an entry of the user's setting (edited there). */
export type WebAccessRow = { kind: 'workspace'; host: string; description: string } | { kind: 'setting'; entry: string; description: string };

/**
 * The rows the command lists, workspace's first: the hosts allowed "always" here, then the user
 * setting's entries, each marked as such (a host in both is listed in both: forgetting it here
 * leaves the setting's). No rows: nothing is allowed, and every host asks.
 */
export function webAccessRows(remembered: readonly string[], settingEntries: readonly string[]): WebAccessRow[] {
  const rows: WebAccessRow[] = [...remembered].sort().map((host) => ({ kind: 'workspace', host, description: l10n.t('allowed in this workspace ("Always allow")') }));
  for (const entry of settingEntries) {
    const description = entry.startsWith('*.')
      ? l10n.t('your setting {0}: {1} and its subdomains', settingName('web.allowedDomains'), entry.slice(2))
      : l10n.t('your setting {0}: this host only; it may be a private address', settingName('web.allowedDomains'));
    rows.push({ kind: 'setting', entry, description });
  }
  return rows;
}
