// Credentials Evergreen holds must never reach the model: child processes start without them, and
// a guard replaces a known secret value in any tool result (the model could still find it in a
// file the user left in the workspace, e.g. a `.env`).

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

/** Replaces every occurrence of a known secret; text without one comes back unchanged (same string). */
export function redactSecrets(text: string, secrets: readonly KnownSecret[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret.value)) out = out.split(secret.value).join(`[redacted: ${secret.name}]`);
  }
  return out;
}

/**
 * Redacts a stream of text (a command's live output) whose chunks may split a secret: the end of
 * the text that could be the start of a secret is held back until the next chunk or `flush()`.
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
    let longest = 0;
    for (const { value } of this.secrets) {
      for (let length = Math.min(value.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(value.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
