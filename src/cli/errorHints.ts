/**
 * The terminal's words for the core's next steps (ErrorHint kinds): they name the CLI's flags and
 * environment variables, where the extension names its commands and settings (src/extension/errorHints.ts).
 */
import { PROVIDER_INFO, type ProviderId } from '../core/model/backend';
import { isErrorHint, type ErrorHint, type HintKind } from '../core/model/errors';
import type { UserText } from '../core/texts/userText';
import { word } from '../frontends/words';
import { cliFlag } from '../frontends/settingsTable';

const MODEL = cliFlag('model');
const BASE_URL = cliFlag('baseUrl');

const WORDS: Readonly<Record<HintKind, (provider: ProviderId) => string>> = {
  noApiKey: (provider) => `Set ${PROVIDER_INFO[provider].apiKeyEnv} in the environment.`,
  badKey: (provider) => `Set a valid key in ${PROVIDER_INFO[provider].apiKeyEnv}.`,
  unknownModel: () => `Pick another model id with ${MODEL}.`,
  notFound: (provider) => `Check ${MODEL} and ${BASE_URL} (or ${PROVIDER_INFO[provider].baseUrlEnv}).`,
  connection: (provider) => `Check your network and ${BASE_URL} (or ${PROVIDER_INFO[provider].baseUrlEnv}).`,
  credentialsInUrl: (provider) =>
    `Remove the user:password part from ${BASE_URL} (or ${PROVIDER_INFO[provider].baseUrlEnv}): requests cannot carry credentials in the URL, the key in ${PROVIDER_INFO[provider].apiKeyEnv} is sent on its own.`,
  promptTooLong: () => 'The conversation no longer fits the context window: compact it (--resume SESSION_ID -p "/compact") or run without --resume to start a new session.',
  invalidRequest: () => 'If it happens again with every message, run without --resume to start a new session; the transcript of this one stays saved.',
  notCompatible: (provider) =>
    `Pass ${BASE_URL} (or ${PROVIDER_INFO[provider].baseUrlEnv}) with the server's OpenAI-compatible API root, usually ending in /v1 (Ollama: http://localhost:11434/v1, LM Studio: http://localhost:1234/v1, vLLM: http://localhost:8000/v1).`,
  noToolCalls: () => `Evergreen works through tools: pick a model with tool (function) calling with ${MODEL}, or enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser …).`,
};

/** A next step in the terminal's words: a hint kind from this table, the core's text from the words table; a string is worded already. */
export function cliHint(hint: ErrorHint | UserText | string | undefined): string | undefined {
  if (hint === undefined || typeof hint === 'string') return hint;
  return isErrorHint(hint) ? WORDS[hint.kind](hint.provider) : word(hint);
}
