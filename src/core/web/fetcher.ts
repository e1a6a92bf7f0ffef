/**
 * One web page, fetched as safely as a fetch the model asked for can be: http(s) GET only, every
 * host approved (the caller's `authorize`), every address checked before connecting (addresses.ts),
 * the connection made to exactly the address that was checked (a custom `lookup`, so a DNS answer
 * that changes between check and connect — rebinding — cannot redirect it), at most
 * `maxRedirects` redirects each checked again, a byte cap after decompression and one deadline for
 * all of it. No cookies, no credentials, no keys: the request carries the URL, a user agent that
 * names Evergreen, and what it accepts.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { privateAddressReason } from './addresses';
import { namesHostExactly, parseWebUrl } from './domains';
import { WEB_LIMITS, WEB_USER_AGENT } from './limits';

export type WebFetchErrorKind =
  | 'bad_url'
  | 'not_approved'
  | 'private_address'
  | 'dns'
  | 'redirect_loop'
  | 'too_many_redirects'
  | 'timeout'
  | 'tls'
  | 'connection'
  | 'cancelled';

/** A fetch that produced no page; `message` says why and what to do, in words for the model and the user. */
export class WebFetchError extends Error {
  override name = 'WebFetchError';
  constructor(
    readonly kind: WebFetchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name to addresses (tests inject one that answers what they need; default: the system resolver). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export type Authorization = { ok: true } | { ok: false; reason: string };

export interface FetchPageOptions {
  /** Asked before each host is contacted (the first URL, then every redirect target): the approval. */
  authorize(host: string, url: URL): Promise<Authorization>;
  /**
   * Hosts and addresses the user named exactly (setting or flag): a host named may resolve to a
   * private address, and an address named may be reached under any host the user approved (a
   * local server under `localhost`); nothing else reaches one.
   */
  explicitHosts: readonly string[];
  signal: AbortSignal;
  resolve?: Resolver;
  maxBodyBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
}

export interface FetchedPage {
  /** The URL the body came from (after redirects, credentials removed). */
  url: string;
  status: number;
  statusText: string;
  /** The Content-Type header as sent (undefined when absent). */
  contentType: string | undefined;
  /** The body after decompression, at most maxBodyBytes. */
  body: Buffer;
  /** The body was longer than maxBodyBytes and was cut there. */
  truncated: boolean;
  /** Each URL redirected from, in order. */
  redirects: string[];
  /** A user name or password in a URL was removed and never sent. */
  strippedCredentials: boolean;
  /** The address the last hop connected to. */
  address: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

/** Fetches `rawUrl`; throws WebFetchError (never a raw network error) when there is no page to show. */
export async function fetchPage(rawUrl: string, options: FetchPageOptions): Promise<FetchedPage> {
  const maxRedirects = options.maxRedirects ?? WEB_LIMITS.maxRedirects;
  const timeoutMs = options.timeoutMs ?? WEB_LIMITS.timeoutMs;
  // One deadline for the whole fetch: a server that trickles one byte a second never ends it.
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const redirects: string[] = [];
  const seen = new Set<string>();
  let strippedCredentials = false;
  let next = rawUrl;
  let base: string | undefined;
  try {
    for (let hop = 0; ; hop++) {
      const parsed = parseWebUrl(next, base);
      if (!parsed.ok) throw new WebFetchError('bad_url', hop === 0 ? parsed.problem : `The redirect from ${base} goes to a URL that is not fetched: ${parsed.problem}.`);
      strippedCredentials ||= parsed.strippedCredentials;
      const url = parsed.url;
      if (seen.has(url.href)) throw new WebFetchError('redirect_loop', `Redirect loop: ${[...redirects, url.href].join(' -> ')}. The page cannot be fetched.`);
      seen.add(url.href);
      const allowed = await options.authorize(parsed.host, url);
      if (!allowed.ok) throw new WebFetchError('not_approved', allowed.reason);
      const address = await checkedAddress(parsed.host, options, signal);
      const response = await request(url, address, signal);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (hop >= maxRedirects) throw new WebFetchError('too_many_redirects', `More than ${maxRedirects} redirects (${[...redirects, url.href].join(' -> ')} -> …); not followed further.`);
        redirects.push(url.href);
        base = url.href;
        next = location;
        continue;
      }
      const { body, truncated } = await readBody(response, options.maxBodyBytes ?? WEB_LIMITS.maxBodyBytes, signal);
      return {
        url: url.href,
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        contentType: headerValue(response.headers['content-type']),
        body,
        truncated,
        redirects,
        strippedCredentials,
        address: address.address,
      };
    }
  } catch (error) {
    throw asFetchError(error, options.signal, deadline, timeoutMs);
  }
}

/** The one address the request will connect to: resolved once, every answer checked. */
async function checkedAddress(host: string, options: FetchPageOptions, signal: AbortSignal): Promise<ResolvedAddress> {
  const explicit = namesHostExactly(host, options.explicitHosts);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await raceAbort((options.resolve ?? systemResolver)(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new WebFetchError('dns', `Could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}. Check the URL.`);
    }
  }
  if (addresses.length === 0) throw new WebFetchError('dns', `${host} has no address. Check the URL.`);
  if (!explicit) {
    // Every answer, not just the first: a name that also points inside the network is refused whole.
    for (const entry of addresses) {
      // The user allowed that very address: reaching it under this name adds nothing to reaching it directly.
      const reason = namesHostExactly(entry.address, options.explicitHosts) ? undefined : privateAddressReason(entry.address);
      if (reason !== undefined) {
        const how = literal !== 0 ? `${host} is` : `${host} resolves to ${entry.address},`;
        throw new WebFetchError('private_address', `Refused: ${how} ${reason}. Web fetches do not reach private, loopback, link-local or metadata addresses unless the user names the host or that address exactly in evergreen.web.allowedDomains (or --allow-web ${host}).`);
      }
    }
  }
  return addresses[0]!;
}

function request(url: URL, address: ResolvedAddress, signal: AbortSignal): Promise<http.IncomingMessage> {
  // Connect to the checked address whatever the resolver would say now; the URL's host still names
  // the server (Host header, TLS server name and certificate check).
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: 'GET',
        agent: false, // No pooled socket, no shared state between fetches.
        lookup,
        signal,
        headers: {
          'user-agent': WEB_USER_AGENT,
          accept: 'text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

/** The body, decompressed, up to `maxBytes` (the rest is never read: the socket is closed). */
async function readBody(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const onAbort = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      if (size + bytes.length > maxBytes) {
        chunks.push(bytes.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(bytes);
      size += bytes.length;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stream.destroy();
    response.destroy();
  }
  if (signal.aborted) throw signal.reason;
  return { body: Buffer.concat(chunks, size), truncated };
}

function decoded(response: http.IncomingMessage): Readable {
  const encoding = headerValue(response.headers['content-encoding'])?.trim().toLowerCase();
  // The cap counts decompressed bytes: a small gzip bomb is cut like a large page.
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const TLS_CODES = /CERT|TLS|SSL|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY|EPROTO/;

function asFetchError(error: unknown, callerSignal: AbortSignal, deadline: AbortSignal, timeoutMs: number): WebFetchError {
  if (error instanceof WebFetchError) return error;
  if (callerSignal.aborted) return new WebFetchError('cancelled', 'The fetch was cancelled.');
  if (deadline.aborted) return new WebFetchError('timeout', `The page did not finish within ${timeoutMs / 1000} s; nothing of it is shown. Try again later or another URL.`);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && TLS_CODES.test(code)) {
    return new WebFetchError('tls', `The server's TLS certificate could not be verified (${code}: ${message}). The page was not fetched; an unverified connection is never used.`);
  }
  return new WebFetchError('connection', `Could not fetch the page: ${message}${typeof code === 'string' ? ` (${code})` : ''}.`);
}
