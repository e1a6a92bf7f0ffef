// Issue 18: the sandbox settings are a boundary a cloned repository must not lower. They come from
// the user's own settings only (and are application-scoped in the manifest, so VS Code would not
// apply a workspace value either); bad domains are reported, never widened into "everything".
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_REGISTRY_DOMAINS } from '../../../src/core/sandbox/policy';
import { parseSettings, type SettingsSource } from '../../../src/extension/settingsValues';

/** VS Code's merge (workspace over user) for get(), each scope on its own for the rest. */
function source(workspace: Record<string, unknown>, user: Record<string, unknown> = {}): SettingsSource {
  return { get: (key) => workspace[key] ?? user[key], userValue: (key) => user[key], workspaceValue: (key) => workspace[key] };
}

describe('security: sandbox settings', () => {
  it('defaults to on with no domains', () => {
    const settings = parseSettings(source({}));
    assert.deepEqual(settings.sandbox, { enabled: true, allowedDomains: [] });
    assert.deepEqual(settings.problems, []);
  });

  it("ignores a workspace's values: it cannot turn the sandbox off, allow domains or open the registries", () => {
    const settings = parseSettings(
      source({ 'sandbox.enabled': false, 'sandbox.allowedDomains': ['attacker.example'], 'sandbox.allowPackageRegistries': true }),
    );
    assert.deepEqual(settings.sandbox, { enabled: true, allowedDomains: [] });
  });

  it("takes the user's values, over a workspace's", () => {
    const settings = parseSettings(
      source(
        { 'sandbox.enabled': true, 'sandbox.allowedDomains': ['attacker.example'] },
        { 'sandbox.enabled': false, 'sandbox.allowedDomains': ['GitHub.com', '*.example.org'], 'sandbox.allowPackageRegistries': true },
      ),
    );
    assert.equal(settings.sandbox.enabled, false);
    assert.deepEqual(settings.sandbox.allowedDomains, [...PACKAGE_REGISTRY_DOMAINS, 'github.com', '*.example.org']);
    assert.ok(!settings.sandbox.allowedDomains.includes('attacker.example'));
  });

  it('only a literal false turns it off', () => {
    for (const value of ['false', 0, null, 'off']) assert.equal(parseSettings(source({}, { 'sandbox.enabled': value })).sandbox.enabled, true, JSON.stringify(value));
  });

  it('drops bad domains with a problem each, and keeps the good ones', () => {
    const settings = parseSettings(source({}, { 'sandbox.allowedDomains': ['github.com', '*', 'not a domain', 42, 'https://example.com/'] }));
    assert.deepEqual(settings.sandbox.allowedDomains, ['github.com']);
    const sandboxProblems = settings.problems.filter((problem) => problem.startsWith('"evergreen.sandbox.allowedDomains"'));
    assert.equal(sandboxProblems.length, 4, settings.problems.join('\n'));
    assert.match(sandboxProblems[0] ?? '', /would open the whole network.*ignored/);
    assert.match(sandboxProblems[1] ?? '', /"not a domain" is not a domain name/);
    assert.match(sandboxProblems[2] ?? '', /42 is not a string/);
  });

  it('a value that is not a list allows nothing and says so', () => {
    const settings = parseSettings(source({}, { 'sandbox.allowedDomains': '*' }));
    assert.deepEqual(settings.sandbox.allowedDomains, []);
    assert.ok(settings.problems.some((problem) => /"evergreen\.sandbox\.allowedDomains" must be a list of domain names; no domains are allowed/.test(problem)), settings.problems.join('\n'));
  });

  it('the manifest scopes all three to the application (VS Code ignores a workspace value) and trusts none in untrusted workspaces', () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } | Array<{ properties: Record<string, { scope?: string; default?: unknown }> }> };
      capabilities: { untrustedWorkspaces: { restrictedConfigurations?: string[] } };
    };
    const sections = Array.isArray(manifest.contributes.configuration) ? manifest.contributes.configuration : [manifest.contributes.configuration];
    const properties = Object.assign({}, ...sections.map((section) => section.properties)) as Record<string, { scope?: string; default?: unknown }>;
    const expected: Record<string, unknown> = { 'evergreen.sandbox.enabled': true, 'evergreen.sandbox.allowedDomains': [], 'evergreen.sandbox.allowPackageRegistries': false };
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(properties[key]?.scope, 'application', key);
      assert.deepEqual(properties[key]?.default, value, key);
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations?.includes(key), `${key} is not restricted in untrusted workspaces`);
    }
  });
});
