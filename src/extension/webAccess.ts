import type * as vscode from 'vscode';
import type { WebDomainMemory } from '../core/web/access';

// A workspaceState key, not a setting: written only by the user's "always" on a web approval card.
const WEB_DOMAINS_KEY = 'webAllowedHosts';

/**
 * The hosts the user allowed "always" for this workspace (web_fetch asks for the others). Kept in
 * the workspace's state, which VS Code stores outside the folder: nothing in a repository can add to
 * it. "Evergreen: Web Access" (the lead's command) lists and forgets them through this class.
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
