/**
 * Model failures in one vocabulary for every back end: the session, the engine's too-long
 * recovery and the front ends look only at `ModelError.kind`, never at an SDK's error classes.
 */
import { knownSecrets, redactSecrets } from '../secrets';
import type { ModelTexts } from '../texts/model';
import { userText, verbatim, type UserText, type UserTextValue } from '../texts/userText';
import type { ProviderId } from './backend';

export type ModelErrorKind =
  | 'no_api_key'
  | 'authentication'
  | 'permission'
  | 'model_not_found'
  | 'prompt_too_long'
  | 'invalid_request'
  | 'rate_limited'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'cancelled';

/** Kinds the shared retry runner retries (unless the server said otherwise). */
export const RETRYABLE_KINDS: ReadonlySet<ModelErrorKind> = new Set(['rate_limited', 'overloaded', 'server', 'connection']);

/**
 * The next step for a model failure, as a kind: it names a front end's own commands, settings,
 * flags and variables, so each front end words it (src/extension/errorHints.ts for VS Code and the
 * panel, src/cli/errorHints.ts for the terminal); the core never writes those words.
 */
export type HintKind =
  /** No key: the provider's key command or variable. */
  | 'noApiKey'
  /** The key was refused: set a valid one. */
  | 'badKey'
  /** The server does not know the model: pick another model id. */
  | 'unknownModel'
  /** Something was not found (the model, or the endpoint at the base URL): check both. */
  | 'notFound'
  /** The server could not be reached: the network and the base URL. */
  | 'connection'
  /** The base URL carries user:password, which requests cannot. */
  | 'credentialsInUrl'
  /** The conversation no longer fits the window: compact it or start anew. */
  | 'promptTooLong'
  /** A request was refused as invalid: start anew if it repeats. */
  | 'invalidRequest'
  /** The server at the base URL is not an OpenAI-compatible API: point the base URL at its API root. */
  | 'notCompatible'
  /** The model or server has no tool calling: pick a model with it, or enable it on the server. */
  | 'noToolCalls';

/** A hint kind and the provider whose key, settings and variables it is about. */
export interface ErrorHint {
  kind: HintKind;
  provider: ProviderId;
}

/** A next step of `kind` about `provider`'s key, settings or variables. */
export function errorHint(provider: ProviderId, kind: HintKind): ErrorHint {
  return { kind, provider };
}

/** A failure's sentence twice: in English for the log and the model (`Error.message`), and as a kind for the user. */
export interface ModelSaid {
  english: string;
  text: UserText;
}

/** A sentence of the model's server as a kind with its data, and its English. */
export function modelSaid<K extends keyof ModelTexts>(kind: K, data: ModelTexts[K], english: string): ModelSaid {
  return { english, text: { kind, data } as UserText };
}

/** A next step the same on every front end, as a kind. */
export function modelHint(kind: ModelHintKind): UserText {
  return userText(kind, {});
}

type ModelHintKind = { [K in keyof ModelTexts]: K extends `model.hint${string}` ? K : never }[keyof ModelTexts];

/** Whether a ModelError's hint is a kind each front end words from its own table of next steps (ErrorHint), not a sentence. */
export function isErrorHint(hint: ErrorHint | UserText): hint is ErrorHint {
  return 'provider' in hint;
}

/** Optional facts for the shared retry runner, read from the failed response by the back end. */
export interface RetryAdvice {
  /** The server's retry-after / retry-after-ms, in ms. */
  retryAfterMs?: number | undefined;
  /** The server's own verdict (x-should-retry); wins over the kind. */
  shouldRetry?: boolean | undefined;
}

/**
 * The server's count of a prompt it refused as too long, and the most it allows. Servers word the
 * limit differently, so `maxTokens` alone does not give the window: Anthropic's "N tokens > M
 * maximum" names its input window; OpenAI's "you requested T (P in the messages, C in the
 * completion)" and vLLM's "(C > N - P)" count the reply inside the window (the prompt's room is
 * N - C); OpenAI's "your messages resulted in M" and llama.cpp's n_ctx compare the prompt alone.
 */
export interface TooLongCount {
  promptTokens: number;
  /** The most this prompt could have had in this request (the window less the requested reply where the server counted it). */
  maxTokens: number;
  /**
   * The server's whole context window where its words name it (N above; Anthropic's M). The engine
   * learns it when it is smaller than the one assumed, and keeps its own reply reserve inside it.
   */
  window?: number;
  /** Whether the server counted the requested reply (max_tokens) against `window` when it refused. */
  replyCounted?: boolean;
}

/**
 * A model failure classified for the loop and the UI, with the kind of its next step (each front
 * end words it). The message is redacted (a base URL may carry a password).
 */
export class ModelError extends Error {
  /** What the user reads (each front end words it); `message` is the same in English, for the log and the model. */
  text: UserText;

  constructor(
    readonly kind: ModelErrorKind,
    /** English alone: text that is not ours (a server's), shown as it is. */
    said: ModelSaid | string,
    /** A step that names a front end's commands, settings or flags (ErrorHint, worded from each front end's table), or one the same on every front end (a UserText). */
    readonly hint: ErrorHint | UserText | undefined,
    readonly status?: number,
    readonly retry: RetryAdvice = {},
    /** prompt_too_long: the server's count when it gave one (the engine re-anchors its estimate on it). */
    readonly tooLong?: TooLongCount,
  ) {
    const { english, text } = typeof said === 'string' ? { english: said, text: verbatim(said) } : said;
    super(redactUrlSecrets(english));
    this.text = redactText(text, redactUrlSecrets);
    this.name = 'ModelError';
  }
}

/** `text` with `redact` applied to every string in its data (a server's words may echo a URL's password or the key). */
function redactText(text: UserText, redact: (value: string) => string): UserText {
  const value = (item: UserTextValue): UserTextValue => {
    if (typeof item === 'string') return redact(item);
    if (Array.isArray(item)) return item.map((entry: string) => redact(entry));
    if (typeof item === 'object') return redactText(item as UserText, redact);
    return item;
  };
  const data = Object.fromEntries(Object.entries(text.data).map(([key, item]) => [key, value(item as UserTextValue)]));
  return { kind: text.kind, data } as UserText;
}

/**
 * The error an HTTP status says, one table for every back end (`who` is how its messages name the
 * other side: "The API", "The server"). Each back end first handles what only its own bodies say
 * (a prompt too long, no tool support, no quota left, a 404 that is not about the model). 503 and
 * 529 both mean the service is overloaded for the moment; a status of 0 is an error event inside a
 * stream that said nothing more.
 */
export function errorForStatus(status: number, detail: string, who: 'api' | 'server', provider: ProviderId, retry: RetryAdvice): ModelError {
  const hint = (kind: HintKind) => errorHint(provider, kind);
  const code = String(status);
  const whoText = userText(who === 'api' ? 'model.theApi' : 'model.theServer', {});
  const whoEnglish = who === 'api' ? 'The API' : 'The server';
  if (status === 401) return new ModelError('authentication', modelSaid('model.keyRejected', { status: code, detail }, `The API key was rejected (${code}): ${detail}`), hint('badKey'), status, retry);
  if (status === 403) return new ModelError('permission', modelSaid('model.permissionDenied', { status: code, detail }, `Permission denied (${code}): ${detail}`), modelHint('model.hintKeyPermission'), status, retry);
  if (status === 404) return new ModelError('model_not_found', modelSaid('model.notFound', { status: code, detail }, `Not found (${code}): ${detail}`), hint('notFound'), status, retry);
  if (status === 429) return new ModelError('rate_limited', modelSaid('model.rateLimited', { status: code, detail }, `Rate limited (${code}): ${detail}`), modelHint('model.hintWaitAMoment'), status, retry);
  if (status === 503 || status === 529) return new ModelError('overloaded', modelSaid('model.overloaded', { who: whoText, status: code, detail }, `${whoEnglish} is overloaded (${code}): ${detail}`), modelHint('model.hintTryInAMinute'), status, retry);
  if (status >= 500) return new ModelError('server', modelSaid('model.serverFailed', { who: whoText, status: code, detail }, `${whoEnglish} failed (${code}): ${detail}`), modelHint('model.hintServiceStatus'), status, retry);
  if (status === 408 || status === 409) return new ModelError('server', modelSaid('model.askedToRetry', { who: whoText, status: code, detail }, `${whoEnglish} asked to try again (${code}): ${detail}`), modelHint('model.hintTryInAMoment'), status, retry);
  if (!status) return new ModelError('invalid_request', modelSaid('model.rejectedInStream', { who: whoText, detail }, `${whoEnglish} rejected the request (stream error): ${detail}`), hint('invalidRequest'), status, retry);
  return new ModelError('invalid_request', modelSaid('model.rejected', { who: whoText, status: code, detail }, `${whoEnglish} rejected the request (${code}): ${detail}`), hint('invalidRequest'), status, retry);
}

/**
 * URLs in `text` with their user:password and secret-looking query values (key=, token=, …)
 * replaced by ***: every error and log line goes through it, since a base URL may carry them.
 */
export function redactUrlSecrets(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@')
    .replace(/([?&][^=&#\s]*(?:key|token|secret|passw(?:or)?d|pwd|sig|signature|auth)[^=&#\s]*=)[^&#\s]*/gi, '$1***');
}

/**
 * The error with the key in use replaced wherever the server's words echoed it (a proxy or a
 * compatible server that quotes the request's headers back): the message reaches stderr,
 * stream-json, the panel and the logs.
 */
export function withoutKey(error: ModelError, apiKey: string | undefined): ModelError {
  if (apiKey === undefined) return error;
  const secrets = knownSecrets(apiKey, {});
  const message = redactSecrets(error.message, secrets);
  if (message !== error.message) error.message = message;
  error.text = redactText(error.text, (value) => redactSecrets(value, secrets));
  return error;
}

/** Whether a base URL carries user:password (requests cannot; the hint says so). */
export function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** The cancelled error every back end throws when the caller's signal aborts. */
export function cancelledError(): ModelError {
  return new ModelError('cancelled', modelSaid('model.cancelled', {}, 'Cancelled.'), undefined);
}

/** The minimal view of response headers both SDKs give (the Fetch API's Headers). */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The server's wait before a retry, in ms (retry-after-ms, else retry-after in seconds; an
 * HTTP-date is ignored), capped at a minute so one header cannot stall a turn.
 */
export function retryAfterMsFrom(headers: HeaderReader | undefined | null): number | undefined {
  const retryAfterMs = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(retryAfterMs) && retryAfterMs > 0) return Math.min(retryAfterMs, 60_000);
  const raw = headers?.get('retry-after');
  const retryAfter = Number(raw);
  if (raw && Number.isFinite(retryAfter) && retryAfter >= 0) return Math.min(retryAfter * 1000, 60_000);
  return undefined;
}

/** x-should-retry as the SDKs read it: 'true' / 'false', anything else says nothing. */
export function shouldRetryFrom(headers: HeaderReader | undefined | null): boolean | undefined {
  const value = headers?.get('x-should-retry');
  return value === 'true' ? true : value === 'false' ? false : undefined;
}
