// Credentials Evergreen holds must never reach the model: child processes start without them, and
// a guard replaces a known secret value in any tool result (the model could still find it in a
// file the user left in the workspace, e.g. a `.env`).
import { ANSI } from './visibleText';

// Variables that configure model clients (keys, tokens, base URLs that may carry a password):
// a command the model runs has no business with them.
const PROVIDER_PREFIX =
  /^(?:ANTHROPIC|CLAUDE|EVERGREEN|OPENAI|AZURE_OPENAI|AZURE_AI|GEMINI|GOOGLE_GENERATIVE_AI|GOOGLE_API|VERTEX|MISTRAL|GROQ|DEEPSEEK|OPENROUTER|XAI|TOGETHER|FIREWORKS|COHERE|PERPLEXITY|HUGGINGFACE|HF|REPLICATE|VOYAGE|CEREBRAS|LITELLM|OLLAMA)_/i;
const CREDENTIAL_SUFFIX = /(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;
const EXACT = new Set(['AWS_BEARER_TOKEN_BEDROCK']);

/** True for environment variables that hold a model provider's credentials or configuration. */
export function isSecretEnvName(name: string): boolean {
  return EXACT.has(name.toUpperCase()) || PROVIDER_PREFIX.test(name);
}

/**
 * The environment for processes the tools start: the host's, minus Evergreen's secrets and what
 * only makes sense inside the host (in the VS Code extension host, ELECTRON_RUN_AS_NODE and
 * VSCODE_* IPC handles would make `code` and Electron apps misbehave).
 */
export function childProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (key === 'ELECTRON_RUN_AS_NODE' || key.startsWith('VSCODE_') || isSecretEnvName(key)) continue;
    copy[key] = value;
  }
  return copy;
}

/** Shorter values are too likely to occur by chance (and too weak to be real keys). */
const MIN_SECRET_LENGTH = 12;

export interface KnownSecret {
  /** What the user reads in place of the value ("ANTHROPIC_API_KEY"). */
  name: string;
  value: string;
}

/** The secrets to guard: the key in use plus every credential-looking variable of `env`. */
export function knownSecrets(apiKey: string | undefined, env: NodeJS.ProcessEnv): KnownSecret[] {
  const secrets: KnownSecret[] = [];
  if (apiKey !== undefined) secrets.push({ name: 'API key', value: apiKey });
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && isSecretEnvName(key) && CREDENTIAL_SUFFIX.test(key)) secrets.push({ name: key, value });
  }
  return secrets.filter((s) => s.value.length >= MIN_SECRET_LENGTH);
}

/**
 * What a terminal does not show between two characters: escape sequences (also the 8-bit CSI) and
 * format characters (zero-width, bidi). A key printed as `sk-ant-\x1b[0mabc…` reads as the key.
 */
const INVISIBLE = new RegExp(`${ANSI.source}|\\x9b[0-?]*[ -/]*[@-~]|\\p{Cf}`, 'gu');
// eslint-disable-next-line no-control-regex -- these are the characters looked for
const MAY_HIDE = /[\x1b\x9b\p{Cf}]/u;
/** An escape sequence (or a surrogate pair) cut off at the end of a chunk: its rest may follow in the next one. */
// eslint-disable-next-line no-control-regex -- as above
const PARTIAL_ESCAPE = /(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?|\x9b[0-?]*[ -/]*|[\uD800-\uDBFF])$/;
/** Longest unfinished escape held back; a longer one (an OSC never closed) is let through. */
const MAX_PARTIAL_ESCAPE = 4096;

/** The text as a terminal shows it, and where each shown UTF-16 unit sits in the original. */
function visibleProjection(text: string): { visible: string; at: number[] } {
  let visible = '';
  const at: number[] = [];
  let last = 0;
  const keep = (end: number) => {
    for (let index = last; index < end; index++) at.push(index);
    visible += text.slice(last, end);
  };
  for (const match of text.matchAll(INVISIBLE)) {
    keep(match.index);
    last = match.index + match[0].length;
  }
  keep(text.length);
  return { visible, at };
}

function redactOne(text: string, secret: KnownSecret): string {
  const marker = `[redacted: ${secret.name}]`;
  let out = text.includes(secret.value) ? text.split(secret.value).join(marker) : text;
  if (!MAY_HIDE.test(out)) return out;
  // Escape codes or zero-width characters may sit between the key's characters: match what shows.
  const { visible, at } = visibleProjection(out);
  let found = visible.indexOf(secret.value);
  if (found === -1) return out;
  let result = '';
  let last = 0;
  while (found !== -1) {
    const start = at[found] ?? 0;
    const end = (at[found + secret.value.length - 1] ?? start) + 1;
    result += out.slice(last, start) + marker;
    last = end;
    found = visible.indexOf(secret.value, found + secret.value.length);
  }
  out = result + out.slice(last);
  return out;
}

/**
 * Replaces every occurrence of a known secret, also one with escape codes or zero-width characters
 * between its characters; text without one comes back unchanged (same string).
 */
export function redactSecrets(text: string, secrets: readonly KnownSecret[]): string {
  let out = text;
  for (const secret of secrets) out = redactOne(out, secret);
  return out;
}

/**
 * Redacts a stream of text (a command's live output) whose chunks may split a secret: the end of
 * the text that could be the start of a secret, or an escape sequence cut in two, is held back
 * until the next chunk or `flush()`.
 */
export class SecretRedactingStream {
  private pending = '';

  constructor(private readonly secrets: readonly KnownSecret[]) {}

  push(chunk: string): string {
    // Whole secrets first, then hold back the longest tail that begins one.
    const text = redactSecrets(this.pending + chunk, this.secrets);
    const hold = this.heldTail(text);
    this.pending = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }

  private heldTail(text: string): number {
    // An unfinished escape sequence at the end is not shown yet: what precedes it is the tail to judge.
    const partial = PARTIAL_ESCAPE.exec(text);
    const judged = partial && partial[0].length > 0 && partial[0].length <= MAX_PARTIAL_ESCAPE ? partial.index : text.length;
    const { visible, at } = visibleProjection(text.slice(0, judged));
    let longest = 0;
    for (const { value } of this.secrets) {
      for (let length = Math.min(value.length - 1, visible.length); length > longest; length--) {
        if (visible.endsWith(value.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    const from = longest > 0 ? (at[visible.length - longest] ?? judged) : judged;
    return text.length - from;
  }
}

/** Every string in a JSON-like value (an event, a message to the panel) redacted; unchanged parts keep their identity. */
export function redactValue<T>(value: T, secrets: readonly KnownSecret[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const redacted = redactValue(item, secrets);
      changed ||= redacted !== item;
      return redacted;
    });
    return (changed ? items : value) as T;
  }
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const redacted = redactValue(item, secrets);
    if (redacted === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[key] = redacted;
  }
  return (copy ?? value) as T;
}

/**
 * The secrets known so far and the one redaction every outgoing event, panel message and log line
 * goes through. A front end makes one and hands it to each session (which teaches it the session's
 * key and credentials); its own sinks (the CLI's stdout and stderr, the extension's log and webview
 * posts) use the same one, so no path shows a key another path hides.
 */
export class SecretRedactor {
  private known: KnownSecret[] = [];

  constructor(initial: readonly KnownSecret[] = []) {
    this.learn(initial);
  }

  /** Adds secrets (a key read at a session's start); one already known is not added twice. */
  learn(secrets: readonly KnownSecret[]): void {
    for (const secret of secrets) {
      if (secret.value.length >= MIN_SECRET_LENGTH && !this.known.some((known) => known.value === secret.value)) this.known.push(secret);
    }
    // Longest first: a key that contains another is replaced whole.
    this.known.sort((a, b) => b.value.length - a.value.length);
  }

  get secrets(): readonly KnownSecret[] {
    return this.known;
  }

  text(text: string): string {
    return redactSecrets(text, this.known);
  }

  value<T>(value: T): T {
    return redactValue(value, this.known);
  }
}
