/**
 * Where web_fetch may go: which URLs it takes at all, and the user's pre-approved hosts
 * (`evergreen.web.allowedDomains`, `--allow-web`). An entry is a host (`docs.python.org`, `localhost`,
 * `127.0.0.1`, `[::1]`) or all subdomains of one (`*.python.org`, the sandbox's syntax). Only an
 * exact entry names a host explicitly: that alone lets a fetch reach a private address.
 */
import { isIP } from 'node:net';

/** The schemes web_fetch fetches; everything else (`file:`, `ftp:`, `javascript:`, `data:`) is refused. */
export const WEB_SCHEMES: readonly string[] = ['http:', 'https:'];

const HOST_LABELS = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

export type WebUrl =
  | {
      ok: true;
      url: URL;
      /** The host as entries and approvals name it: lower case, IPv6 without brackets. */
      host: string;
      /** Set when the URL carried a user name or password: they were removed and are never sent. */
      strippedCredentials: boolean;
    }
  | { ok: false; problem: string };

/**
 * A URL as web_fetch will request it: absolute http(s), credentials removed, the fragment dropped
 * (it is never sent to a server). `base`: what a relative redirect is resolved against.
 */
export function parseWebUrl(text: string, base?: string): WebUrl {
  let url: URL;
  try {
    url = base === undefined ? new URL(text.trim()) : new URL(text.trim(), base);
  } catch {
    return { ok: false, problem: `"${text.slice(0, 200)}" is not an absolute URL (give one like https://example.com/page)` };
  }
  if (!WEB_SCHEMES.includes(url.protocol)) {
    return { ok: false, problem: `${url.protocol} URLs are not fetched: web_fetch only makes http and https GET requests` };
  }
  const strippedCredentials = url.username !== '' || url.password !== '';
  url.username = '';
  url.password = '';
  url.hash = '';
  const host = hostOf(url);
  if (host === '') return { ok: false, problem: `"${text.slice(0, 200)}" has no host` };
  return { ok: true, url, host, strippedCredentials };
}

/** The URL's host without IPv6 brackets, lower case (the URL parser already punycoded a name). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** What is wrong with an allowed-domains entry; undefined when it is usable. */
export function webDomainProblem(entry: string): string | undefined {
  const text = normalizeEntry(entry);
  if (text === '') return 'an empty entry';
  if (text === '*' || text === '*.*') return `"${entry}" would allow the whole web; list the domains you want fetched`;
  if (/[/:?#@]/.test(text) && isIP(text) !== 6) return `"${entry}" is not a host name (give "example.com", "*.example.com" or an IP address, without a scheme, path or port)`;
  if (isIP(text) !== 0) return undefined;
  const name = text.startsWith('*.') ? text.slice(2) : text;
  return HOST_LABELS.test(name) ? undefined : `"${entry}" is not a host name (e.g. "example.com" or "*.example.com")`;
}

function normalizeEntry(entry: string): string {
  return entry.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** The usable entries of a setting or of the flags, and each bad one in words. */
export function parseWebDomains(entries: readonly unknown[]): { domains: string[]; problems: string[] } {
  const domains = new Set<string>();
  const problems: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      problems.push(`${JSON.stringify(entry)} is not a string`);
      continue;
    }
    const problem = webDomainProblem(entry);
    if (problem) problems.push(problem);
    else domains.add(normalizeEntry(entry));
  }
  return { domains: [...domains], problems };
}

/** Whether `host` is covered by one of the entries (exact, or a subdomain of a `*.` entry). */
export function matchesWebDomain(host: string, entries: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return entries.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : entry === name));
}

/** Whether the user named exactly this host (no wildcard): only then may it resolve to a private address. */
export function namesHostExactly(host: string, entries: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return entries.includes(name);
}
