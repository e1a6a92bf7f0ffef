import * as vscode from 'vscode';

const SECRET_KEY = 'evergreen.anthropicApiKey';

/** The API key lives in SecretStorage; ANTHROPIC_API_KEY from the environment is the fallback. */
export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(): Promise<string | undefined> {
    return (await this.secrets.get(SECRET_KEY)) || process.env.ANTHROPIC_API_KEY || undefined;
  }

  async promptAndStore(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: 'Evergreen: Anthropic API key',
      prompt: 'Stored in VS Code SecretStorage; it is never written to settings, transcripts or logs.',
      password: true,
      ignoreFocusOut: true,
      placeHolder: 'sk-ant-…',
      validateInput: (value) => (value.trim().length < 8 ? 'That does not look like an API key.' : undefined),
    });
    if (key === undefined) return false;
    await this.secrets.store(SECRET_KEY, key.trim());
    void vscode.window.showInformationMessage('Evergreen: API key saved.');
    return true;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((event) => {
      if (event.key === SECRET_KEY) listener();
    });
  }
}
