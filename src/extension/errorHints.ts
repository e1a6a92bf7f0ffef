/**
 * The VS Code words for the core's next steps (ErrorHint kinds): they name the extension's
 * commands and settings. Pure (no vscode import) so unit tests check them in plain node; the
 * CLI words the same kinds with its flags (src/cli/errorHints.ts).
 */
import * as l10n from '@vscode/l10n';
import { PROVIDER_INFO, type ProviderId } from '../core/model/backend';
import { ContextWindowTooSmallError } from '../core/context/engineTypes';
import { UnknownModeError } from '../core/agent/modes';
import { isErrorHint, ModelError, type ErrorHint, type HintKind } from '../core/model/errors';
import type { UserText } from '../core/texts/userText';
import { word } from '../frontends/words';
import { ActionableError, errorActionsFor, type ErrorAction } from '../core/model/errorActions';
import { PROVIDER_SETTINGS, settingName } from '../frontends/settingsTable';

// Functions, so each sentence is looked up in the bundle the extension configured at activation.
const WORDS: Readonly<Record<HintKind, (provider: ProviderId) => string>> = {
  noApiKey: (provider) => l10n.t('Run "Evergreen: Set API Key" or set {0} in the environment.', PROVIDER_INFO[provider].apiKeyEnv),
  badKey: () => l10n.t('Set a valid key with "Evergreen: Set API Key".'),
  // Only the setting: the CLI's flag is the CLI's to name (src/cli/errorHints.ts).
  unknownModel: (provider) => l10n.t('Pick another model id in the "{0}" setting.', modelSetting(provider)),
  notFound: (provider) => l10n.t('Check the "{0}" and "{1}" settings.', modelSetting(provider), urlSetting(provider)),
  connection: (provider) => l10n.t('Check your network and the "{0}" setting (or {1}).', urlSetting(provider), PROVIDER_INFO[provider].baseUrlEnv),
  credentialsInUrl: (provider) =>
    l10n.t('Remove the user:password part from the "{0}" setting (or {1}): requests cannot carry credentials in the URL, the API key is sent on its own.', urlSetting(provider), PROVIDER_INFO[provider].baseUrlEnv),
  promptTooLong: () => l10n.t('The conversation no longer fits the context window: start a New Chat.'),
  invalidRequest: () => l10n.t('If it happens again with every message, start a New Chat; the transcript of this one stays saved.'),
  notCompatible: (provider) =>
    l10n.t(
      "Set \"{0}\" to the server's OpenAI-compatible API root, usually ending in /v1 (Ollama: http://localhost:11434/v1, LM Studio: http://localhost:1234/v1, vLLM: http://localhost:8000/v1).",
      urlSetting(provider),
    ),
  noToolCalls: (provider) =>
    l10n.t('Evergreen works through tools: pick a model with tool (function) calling in "{0}", or enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser …).', modelSetting(provider)),
};

function modelSetting(provider: ProviderId): string {
  return settingName(PROVIDER_SETTINGS[provider].model);
}

function urlSetting(provider: ProviderId): string {
  return settingName(PROVIDER_SETTINGS[provider].baseUrl);
}

/** A next step in the extension's words: a hint kind from this table, the core's text from the words table; a string is worded already. */
export function extensionHint(hint: ErrorHint | UserText | string | undefined): string | undefined {
  if (hint === undefined || typeof hint === 'string') return hint;
  return isErrorHint(hint) ? WORDS[hint.kind](hint.provider) : word(hint);
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
    return hint ? `${word(error.text)} ${hint}` : word(error.text);
  }
  if (error instanceof ContextWindowTooSmallError) return word(error.text);
  if (error instanceof UnknownModeError) return word(error.said);
  return error instanceof Error ? error.message : String(error);
}
