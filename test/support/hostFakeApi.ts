/**
 * The fake Messages API for one integration suite in the extension host: started before the suite,
 * made the extension's key and base URL (user settings), and unset and closed after it, so the next
 * suite starts from the settings as they were.
 */
import * as vscode from 'vscode';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

export function useFakeApi(started: (fake: FakeAnthropic) => void): void {
  let fake: FakeAnthropic | undefined;
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    started(fake);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await fake?.close();
  });
}
