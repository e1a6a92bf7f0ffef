/**
 * "Evergreen: Web Access" (issue 30): what it lists — this workspace's "always" hosts first (they
 * can be forgotten), then the user setting's entries marked as such — and the workspace memory it
 * forgets from, which the running session reads too (WebAccess over the same state).
 */
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { WebAccess } from '../../src/core/web/access';
import { webAccessRows, WorkspaceWebDomains } from '../../src/extension/webAccess';

/** VS Code's workspace state as a map (the extension host's Memento stores JSON values the same way). */
function memento(initial: Record<string, unknown> = {}): vscode.Memento {
  const values = new Map(Object.entries(initial));
  return {
    keys: () => [...values.keys()],
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => void (value === undefined ? values.delete(key) : values.set(key, value)),
  } as vscode.Memento;
}

describe('Evergreen: Web Access', () => {
  it("lists this workspace's hosts first, sorted, then the setting's entries, each marked where it comes from", () => {
    const rows = webAccessRows(['b.example', 'a.example'], ['docs.python.org', '*.nodejs.org', '127.0.0.1']);
    assert.deepEqual(rows.map((row) => (row.kind === 'workspace' ? `workspace ${row.host}` : `setting ${row.entry}`)), [
      'workspace a.example',
      'workspace b.example',
      'setting docs.python.org',
      'setting *.nodejs.org',
      'setting 127.0.0.1',
    ]);
    assert.match(rows[0]!.description, /allowed in this workspace/);
    assert.equal(rows[3]!.description, 'your setting evergreen.web.allowedDomains: nodejs.org and its subdomains');
    assert.equal(rows[4]!.description, 'your setting evergreen.web.allowedDomains: this host only; it may be a private address');
    assert.deepEqual(webAccessRows([], []), []);
  });

  it('forgets a host for the running session too: the next fetch from it asks again; the setting is untouched', async () => {
    const state = memento();
    const domains = new WorkspaceWebDomains(state);
    // What a session holds: its own WebAccess over the same workspace state.
    const session = new WebAccess(['docs.python.org'], new WorkspaceWebDomains(state));
    await session.remember('Docs.Example.com');
    assert.deepEqual(domains.list(), ['docs.example.com'], 'the command sees what the session remembered');
    assert.equal(session.preapproved('docs.example.com'), 'remembered');
    await domains.forget('docs.example.com');
    assert.equal(session.preapproved('docs.example.com'), undefined, 'asked again');
    assert.equal(session.preapproved('docs.python.org'), 'setting');
    assert.deepEqual(domains.list(), []);
  });

  it('ignores a workspace state it did not write (not a list, or not strings)', () => {
    assert.deepEqual(new WorkspaceWebDomains(memento({ webAllowedHosts: 'evil.example' })).list(), []);
    assert.deepEqual(new WorkspaceWebDomains(memento({ webAllowedHosts: ['ok.example', 42, null] })).list(), ['ok.example']);
  });
});
