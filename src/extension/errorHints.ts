/**
 * The VS Code words for the core's next steps (ErrorHint kinds): they name the extension's
 * commands and settings. Pure (no vscode import) so unit tests check them in plain node; the
 * CLI words the same kinds with its flags (src/cli/errorHints.ts).
 */
import { PROVIDER_INFO, type ProviderId } from '../core/model/backend';
import { ModelError, type ErrorHint, type HintKind } from '../core/model/errors';
import { ActionableError, errorActionsFor, type ErrorAction } from '../core/model/errorActions';
import { PROVIDER_SETTINGS, settingName } from '../frontends/settingsTable';

const WORDS: Readonly<Record<HintKind, (provider: ProviderId) => string>> = {
  noApiKey: (provider) => `Run "Evergreen: Set API Key" or set ${PROVIDER_INFO[provider].apiKeyEnv} in the environment.`,
  badKey: () => 'Set a valid key with "Evergreen: Set API Key".',
  unknownModel: (provider) => `Pick another model id in the "${modelSetting(provider)}" setting (or --model).`,
  notFound: (provider) => `Check the "${modelSetting(provider)}" and "${urlSetting(provider)}" settings.`,
  connection: (provider) => `Check your network and the "${urlSetting(provider)}" setting (or ${PROVIDER_INFO[provider].baseUrlEnv}).`,
  credentialsInUrl: (provider) =>
    `Remove the user:password part from the "${urlSetting(provider)}" setting (or ${PROVIDER_INFO[provider].baseUrlEnv}): requests cannot carry credentials in the URL, the API key is sent on its own.`,
  promptTooLong: () => 'The conversation no longer fits the context window: start a New Chat.',
  invalidRequest: () => 'If it happens again with every message, start a New Chat; the transcript of this one stays saved.',
  notCompatible: (provider) =>
    `Set "${urlSetting(provider)}" to the server's OpenAI-compatible API root, usually ending in /v1 (Ollama: http://localhost:11434/v1, LM Studio: http://localhost:1234/v1, vLLM: http://localhost:8000/v1).`,
  noToolCalls: (provider) =>
    `Evergreen works through tools: pick a model with tool (function) calling in "${modelSetting(provider)}", or enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser …).`,
};

function modelSetting(provider: ProviderId): string {
  return settingName(PROVIDER_SETTINGS[provider].model);
}

function urlSetting(provider: ProviderId): string {
  return settingName(PROVIDER_SETTINGS[provider].baseUrl);
}

/** A next step in the extension's words: a kind is worded here, text from the core is already words. */
export function extensionHint(hint: ErrorHint | string | undefined): string | undefined {
  if (hint === undefined || typeof hint === 'string') return hint;
  return WORDS[hint.kind](hint.provider);
}

/** The core's next steps for a failure to start or send (an unexpected error can be retried). */
export function actionsFor(error: unknown): ErrorAction[] {
  if (error instanceof ModelError) return error.kind === 'cancelled' ? [] : errorActionsFor(error.kind);
  if (error instanceof ActionableError) return error.actions;
  return errorActionsFor('internal');
}

/** An error for the panel or a toast, with the next step worded for VS Code. */
export function errorText(error: unknown): string {
  if (error instanceof ModelError) {
    const hint = extensionHint(error.hint);
    return hint ? `${error.message} ${hint}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
