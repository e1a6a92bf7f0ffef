/**
 * Which hosts web_fetch may reach without asking: the user's own list (`evergreen.web.allowedDomains`,
 * `--allow-web`) and the hosts the user allowed "always" in this workspace, which the front end keeps
 * (`WebDomainMemory`: the extension in its workspace state, the CLI for the run only). Nothing a
 * workspace holds can add to either: the setting is the user's (application scope), and the memory
 * is written only by the user's answer to an approval.
 */
import { matchesWebDomain, namesHostExactly } from './domains';

/** Where "always for this domain in this workspace" is kept: the front end implements it. */
export interface WebDomainMemory {
  /** The hosts allowed for this workspace, as kept. */
  list(): readonly string[];
  remember(host: string): Promise<void>;
  /** Removes a host (the extension's "Evergreen: Web Access" command). */
  forget(host: string): Promise<void>;
}

/** A memory that lasts as long as the process: the CLI's (it keeps nothing beyond its flags). */
export function runMemory(): WebDomainMemory {
  const hosts = new Set<string>();
  return {
    list: () => [...hosts],
    remember: async (host) => void hosts.add(host.toLowerCase()),
    forget: async (host) => void hosts.delete(host.toLowerCase()),
  };
}

export type Preapproval = 'setting' | 'remembered' | undefined;

export class WebAccess {
  constructor(
    /** Parsed entries of the setting and the flags (domains.ts `parseWebDomains`). */
    private readonly allowedDomains: readonly string[],
    private readonly memory: WebDomainMemory = runMemory(),
  ) {}

  /** Why `host` needs no approval, or undefined when it does. */
  preapproved(host: string): Preapproval {
    if (matchesWebDomain(host, this.allowedDomains)) return 'setting';
    if (namesHostExactly(host, this.memory.list())) return 'remembered';
    return undefined;
  }

  /** Hosts and addresses the user named exactly (no wildcard): the only ways to a private address (fetcher.ts). Remembered approvals never count. */
  get explicitHosts(): readonly string[] {
    return this.allowedDomains.filter((entry) => !entry.startsWith('*.'));
  }

  remember(host: string): Promise<void> {
    return this.memory.remember(host.toLowerCase());
  }
}
