import * as vscode from 'vscode';
import { PROVIDER_INFO, type ProviderId } from '../core/model/backend';

/** One SecretStorage entry per provider (the Anthropic one keeps its original name). */
const SECRET_KEYS: Readonly<Record<ProviderId, string>> = { anthropic: 'evergreen.anthropicApiKey', openai: 'evergreen.openaiApiKey' };
/** The SearXNG instance's key (web search on the OpenAI-compatible back end). */
const SEARXNG_KEY = 'evergreen.searxngKey';
const PLACEHOLDERS: Readonly<Record<ProviderId, string>> = { anthropic: 'sk-ant-…', openai: 'sk-…' };

/** Each provider's key lives in SecretStorage; its environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY) is the fallback. */
export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(provider: ProviderId = 'anthropic'): Promise<string | undefined> {
    // Unlike the CLI, the variable is not deleted from process.env once read: the extension host's
    // environment is shared by every extension in it (another may use the same key), it is read
    // again when the key or provider changes, and /proc/<pid>/environ keeps it either way. Our
    // children get childProcessEnv (without it) and every tool result is redacted.
    return (await this.secrets.get(SECRET_KEYS[provider])) || process.env[PROVIDER_INFO[provider].apiKeyEnv] || undefined;
  }

  /** Asks for `provider`'s key (the active provider's, when "Evergreen: Set API Key" runs). */
  async promptAndStore(provider: ProviderId = 'anthropic'): Promise<boolean> {
    const label = PROVIDER_INFO[provider].label;
    const key = await vscode.window.showInputBox({
      title: vscode.l10n.t('Evergreen: {0} API key', label),
      prompt:
        provider === 'openai'
          ? vscode.l10n.t('Stored in VS Code SecretStorage; it is never written to settings, transcripts or logs. Local servers that need no key accept any placeholder.')
          : vscode.l10n.t('Stored in VS Code SecretStorage; it is never written to settings, transcripts or logs.'),
      password: true,
      ignoreFocusOut: true,
      placeHolder: PLACEHOLDERS[provider],
      validateInput: (value) => (value.trim().length < 8 ? vscode.l10n.t('That does not look like an API key.') : undefined),
    });
    if (key === undefined) return false;
    await this.secrets.store(SECRET_KEYS[provider], key.trim());
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0} API key saved.', label));
    return true;
  }

  /**
   * The optional key for the user's SearXNG instance (sent as a bearer token to a proxy in front of
   * it); "Evergreen: Set SearXNG Key" sets and removes it (webAccessCommand.ts).
   */
  async searxngKey(): Promise<string | undefined> {
    return (await this.secrets.get(SEARXNG_KEY)) || undefined;
  }

  async storeSearxngKey(key: string | undefined): Promise<void> {
    if (key === undefined || key.trim() === '') await this.secrets.delete(SEARXNG_KEY);
    else await this.secrets.store(SEARXNG_KEY, key.trim());
  }

  /** A provider's key or the SearXNG key changed (a session reads them when it starts). */
  onDidChange(listener: () => void): vscode.Disposable {
    const keys = new Set([...Object.values(SECRET_KEYS), SEARXNG_KEY]);
    return this.secrets.onDidChange((event) => {
      if (keys.has(event.key)) listener();
    });
  }
}
