/**
 * Settings parsing (settingsValues.ts runs in plain node): the provider picks which model and
 * base URL apply, bad values fall back with a problem to show, approvals come from the user's own
 * settings only; a provider change restarts the session (on its transcript, so the history stays).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SUBAGENT_DEFAULTS, SUBAGENT_LIMIT_RANGES } from '../../src/core/agent/subagentLimits';
import { settingChangeEffect } from '../../src/extension/settingChanges';
import { apiKeyRequired, parseSettings, type SettingsSource } from '../../src/extension/settingsValues';
import { declaredSettings } from '../support/manifestSettings';

/** `effective` as VS Code resolves it; `user` the user's own values (workspace values never in it). */
function source(effective: Record<string, unknown>, user: Record<string, unknown> = effective): SettingsSource {
  return { get: (key) => effective[key], userValue: (key) => user[key] };
}

describe('extension settings', () => {
  it('defaults to the Anthropic provider with its own model and base URL', () => {
    const settings = parseSettings(source({ provider: 'anthropic', model: ' claude-opus-4-5 ', baseUrl: 'http://gw/anthropic', 'openai.model': 'gpt-4o', 'openai.baseUrl': 'http://localhost:11434/v1' }));
    assert.equal(settings.provider, 'anthropic');
    assert.equal(settings.model, 'claude-opus-4-5');
    assert.equal(settings.baseUrl, 'http://gw/anthropic');
    assert.deepEqual(settings.problems, []);
    // No value at all (no manifest default, e.g. an old VS Code profile): still Anthropic.
    assert.equal(parseSettings(source({})).provider, 'anthropic');
  });

  it('takes the model and base URL of the OpenAI provider when it is selected', () => {
    const settings = parseSettings(source({ provider: 'openai', model: 'claude-opus-4-5', baseUrl: 'http://gw/anthropic', 'openai.model': 'qwen2.5-coder:7b', 'openai.baseUrl': ' http://localhost:11434/v1 ' }));
    assert.equal(settings.provider, 'openai');
    assert.equal(settings.model, 'qwen2.5-coder:7b');
    assert.equal(settings.baseUrl, 'http://localhost:11434/v1');
    // Empty strings mean "the provider's default".
    const defaults = parseSettings(source({ provider: 'openai', 'openai.model': '  ', 'openai.baseUrl': '' }));
    assert.equal(defaults.model, undefined);
    assert.equal(defaults.baseUrl, undefined);
  });

  it('falls back to Anthropic on an unknown provider, saying so', () => {
    const settings = parseSettings(source({ provider: 'azure', model: 'claude-opus-4-5' }));
    assert.equal(settings.provider, 'anthropic');
    assert.equal(settings.model, 'claude-opus-4-5');
    assert.equal(settings.problems.length, 1);
    assert.match(settings.problems[0]!, /"evergreen\.provider" must be "anthropic" or "openai", got "azure"; using "anthropic"/);
  });

  it("reads approvals from the user's own settings only, whatever the workspace says", () => {
    const settings = parseSettings(
      source(
        { 'approvals.writes': 'auto', 'approvals.shell': 'auto', 'approvals.shellAllowList': ['rm -rf'], 'approvals.mcp': 'auto', 'approvals.mcpAllowList': ['mcp__evil__*'], 'mcp.servers': { evil: { command: 'x' } } },
        { 'approvals.writes': 'ask', 'approvals.shellAllowList': ['git status', 7], 'approvals.mcpAllowList': ['mcp__github__*', 3] },
      ),
    );
    assert.deepEqual(settings.approvals, { writes: 'ask', shell: 'ask', shellAllowList: ['git status'], mcp: 'ask', mcpAllowList: ['mcp__github__*'] });
    assert.equal(settings.mcpServers, undefined, "the workspace's value of evergreen.mcp.servers is never read");
  });

  it('reads the subagent limits (time in minutes); a bad one keeps its default and is named', () => {
    const settings = parseSettings(source({ 'subagents.maxConcurrent': 5, 'subagents.maxToolRounds': 50, 'subagents.timeLimitMinutes': 30 }));
    assert.deepEqual(settings.subagents, { maxConcurrent: 5, maxToolRounds: 50, timeLimitMs: 30 * 60_000 });
    assert.deepEqual(settings.problems, []);
    // Unset (null or absent): the core's defaults apply.
    assert.deepEqual(parseSettings(source({ 'subagents.maxConcurrent': null })).subagents, {});
    const bad = parseSettings(source({ 'subagents.maxConcurrent': 0, 'subagents.maxToolRounds': 2.5, 'subagents.timeLimitMinutes': '10' }));
    assert.deepEqual(bad.subagents, {});
    assert.deepEqual(bad.problems, [
      '"evergreen.subagents.maxConcurrent" must be a whole number from 1 to 10, got 0; using 3',
      '"evergreen.subagents.maxToolRounds" must be a whole number from 1 to 10000, got 2.5; using 200',
      '"evergreen.subagents.timeLimitMinutes" must be a whole number from 1 to 1440, got "10"; using 15',
    ]);
  });

  it('declares the subagent settings in the manifest with the core\'s defaults and ranges', () => {
    const properties = declaredSettings();
    const expected: Record<string, [number, { min: number; max: number }]> = {
      maxConcurrent: [SUBAGENT_DEFAULTS.maxConcurrent, SUBAGENT_LIMIT_RANGES.maxConcurrent],
      maxToolRounds: [SUBAGENT_DEFAULTS.maxToolRounds, SUBAGENT_LIMIT_RANGES.maxToolRounds],
      timeLimitMinutes: [SUBAGENT_DEFAULTS.timeLimitMs / 60_000, SUBAGENT_LIMIT_RANGES.timeLimitMinutes],
    };
    for (const [key, [value, range]] of Object.entries(expected)) {
      const property = properties[`evergreen.subagents.${key}`];
      assert.ok(property, key);
      assert.deepEqual([property.default, property.minimum, property.maximum], [value, range.min, range.max], key);
    }
  });

  it("takes the provider and base URLs from the user's settings only: a repository's .vscode/settings.json cannot change where the code is sent", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } };
    const properties = declaredSettings();
    // Machine scope: VS Code ignores a workspace's value (a remote machine may still set its own, e.g. a local server there).
    // The price table too: a repository must not be able to make the shown cost read $0.
    for (const key of ['evergreen.provider', 'evergreen.baseUrl', 'evergreen.openai.baseUrl', 'evergreen.pricing']) {
      assert.equal(properties[key]?.scope, 'machine', key);
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), `${key} is not restricted in untrusted workspaces`);
    }
  });

  it('needs a key for Anthropic and for OpenAI itself, not for an OpenAI-compatible server at a base URL', () => {
    assert.equal(apiKeyRequired({ provider: 'anthropic', baseUrl: 'http://gw' }, {}), true);
    assert.equal(apiKeyRequired({ provider: 'openai', baseUrl: undefined }, {}), true);
    assert.equal(apiKeyRequired({ provider: 'openai', baseUrl: 'http://localhost:11434/v1' }, {}), false);
    assert.equal(apiKeyRequired({ provider: 'openai', baseUrl: undefined }, { OPENAI_BASE_URL: 'http://localhost:1234/v1' }), false);
    assert.equal(apiKeyRequired({ provider: 'openai', baseUrl: undefined }, { OPENAI_BASE_URL: ' ' }), true);
  });

  it('restarts the session when the provider or an OpenAI setting changes, and applies prices live', () => {
    const changed = (...sections: string[]) => (section: string) => sections.some((name) => name === section || name.startsWith(`${section}.`));
    assert.equal(settingChangeEffect(changed('evergreen.provider')), 'restart');
    assert.equal(settingChangeEffect(changed('evergreen.openai.model')), 'restart');
    assert.equal(settingChangeEffect(changed('evergreen.openai.baseUrl')), 'restart');
    assert.equal(settingChangeEffect(changed('evergreen.pricing')), 'live');
    assert.equal(settingChangeEffect(changed('editor.fontSize')), 'none');
  });

  it('reads the instruction settings (on unless explicitly false) and rebuilds the session when they change', () => {
    const source = (user: Record<string, unknown>): SettingsSource => ({ get: (key) => user[key], userValue: (key) => user[key] });
    assert.deepEqual(parseSettings(source({})).instructions, { enabled: true, userFile: undefined });
    assert.deepEqual(parseSettings(source({ 'instructions.enabled': false, 'instructions.userFile': ' ~/my-rules.md ' })).instructions, { enabled: false, userFile: '~/my-rules.md' });
    assert.deepEqual(parseSettings(source({ 'instructions.enabled': 'no', 'instructions.userFile': 42 })).instructions, { enabled: true, userFile: undefined });
    const changed = (name: string) => (section: string) => name === section || name.startsWith(`${section}.`);
    assert.equal(settingChangeEffect(changed('evergreen.instructions.enabled')), 'restart');
    assert.equal(settingChangeEffect(changed('evergreen.instructions.userFile')), 'restart');
  });
});
