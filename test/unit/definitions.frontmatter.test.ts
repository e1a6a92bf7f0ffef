/**
 * What commands, modes and skills share (src/core/definitions/): frontmatter parsed under limits an
 * untrusted file cannot get past, the field shapes real files use, and tool lists that only narrow
 * (other tools' names mapped, MCP tools selected, grants and unknown names reported).
 */
import assert from 'node:assert/strict';
import { hintField, listField, modelField, parseFrontmatter, textField } from '../../src/core/definitions/frontmatter';
import { chooseModel, modelIdOf } from '../../src/core/definitions/modelChoice';
import { parseToolList, restrictTools, unmatchedMcpEntries, type OfferedTool } from '../../src/core/definitions/toolNames';
import { said } from '../support/said';
import type { UserText } from '../../src/core/texts/userText';

describe('definitions: frontmatter', () => {
  it('splits frontmatter from the body; a file without it is all body', () => {
    assert.deepEqual(parseFrontmatter('---\ndescription: Review it\n---\nBody\n'), { kind: 'ok', fields: { description: 'Review it' }, body: 'Body\n' });
    assert.deepEqual(parseFrontmatter('---\r\ndescription: x\r\n...\r\nBody'), { kind: 'ok', fields: { description: 'x' }, body: 'Body' });
    assert.deepEqual(parseFrontmatter('---\n---\nBody'), { kind: 'ok', fields: {}, body: 'Body' });
    assert.deepEqual(parseFrontmatter('Body only\n---\nnot frontmatter'), { kind: 'none', body: 'Body only\n---\nnot frontmatter' });
    assert.equal(parseFrontmatter(' ---\ndescription: x\n---\n').kind, 'none', 'it must open the file');
  });

  it('refuses what would cost or run more than text: alias bombs, custom tags, duplicate keys', () => {
    const bomb = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`), '---', 'body'].join('\n');
    const parsed = parseFrontmatter(bomb);
    assert.equal(parsed.kind, 'invalid');
    assert.match(said((parsed as { problem: UserText }).problem), /aliases/);
    const tagged = parseFrontmatter('---\ndescription: !!js/function "function () { return 1 }"\n---\n');
    assert.deepEqual(tagged, { kind: 'ok', fields: { description: 'function () { return 1 }' }, body: '' }, 'an unknown tag leaves text, never code');
    const duplicate = parseFrontmatter('---\nmodel: a\nmodel: b\n---\n');
    assert.equal(duplicate.kind, 'invalid');
    assert.match(said((duplicate as { problem: UserText }).problem), /not valid YAML: .*unique.*line 3/);
  });

  it("reads Claude Code's argument-hint as written, but keeps every other YAML error an error", () => {
    const hint = parseFrontmatter('---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: x\n---\n');
    assert.equal(hint.kind, 'ok');
    assert.equal(hintField((hint as { fields: Record<string, unknown> }).fields, 'argument-hint').value, '[pr-number] [priority] [assignee]');
    assert.equal(hintField({ 'argument-hint': ['message'] }, 'argument-hint').value, '[message]', 'a one-group hint is a YAML list');
    assert.equal(parseFrontmatter('---\ntools: [read\n---\n').kind, 'invalid');
    assert.equal(parseFrontmatter('---\ndescription: "unclosed\n---\n').kind, 'invalid');
  });

  it('reads text, lists (YAML or one line, parentheses kept together) and models (one or a list)', () => {
    assert.deepEqual(textField({ version: 2 }, 'version'), { value: '2' });
    assert.match(said(textField({ description: { a: 1 } }, 'description').problem!), /must be text/);
    assert.deepEqual(listField({ t: 'Bash(git add:*), Read  Grep' }, 't').value, ['Bash(git add:*)', 'Read', 'Grep']);
    assert.deepEqual(listField({ t: ['Bash(git commit -m:*)', 'Edit'] }, 't').value, ['Bash(git commit -m:*)', 'Edit']);
    assert.match(said(listField({ t: [1, 2] }, 't').problem!), /must list names/);
    assert.deepEqual(modelField({ model: ['Claude Opus 4.5', 'GPT-5.2'] }, 'model').value, ['Claude Opus 4.5', 'GPT-5.2']);
    assert.deepEqual(modelField({ model: 'claude-sonnet-4-5' }, 'model').value, ['claude-sonnet-4-5']);
    assert.match(said(modelField({ model: [1] }, 'model').problem!), /model name/);
  });
});

describe('definitions: tool lists', () => {
  const where = { file: 'x.md', field: 'tools' };
  const offered: OfferedTool[] = [
    { name: 'read_file' },
    { name: 'list_files' },
    { name: 'grep_search' },
    { name: 'write_file' },
    { name: 'edit_file' },
    { name: 'run_shell' },
    { name: 'task' },
    { name: 'todo_write' },
    { name: 'recall' },
    { name: 'compact' },
    { name: 'mcp__github__get_issue', mcpServer: 'github', context: { external: true } },
    { name: 'mcp__github__create_pr', mcpServer: 'github', context: { external: true } },
    { name: 'mcp__my_db__query', mcpServer: 'my.db', context: { external: true } },
    { name: 'mcp_call', context: { external: true } },
  ];
  const allowed = (entries: string[]) => restrictTools(offered, parseToolList(entries, where).restriction).map((tool) => tool.name);

  it("maps Claude Code's and Copilot's names to Evergreen's tools, keeping recall and compact", () => {
    assert.deepEqual(allowed(['Read', 'Grep', 'Glob']), ['read_file', 'list_files', 'grep_search', 'recall', 'compact']);
    assert.deepEqual(allowed(['edit', 'runCommands', 'todos']), ['write_file', 'edit_file', 'run_shell', 'todo_write', 'recall', 'compact']);
    assert.deepEqual(allowed(['Edit']), ['edit_file', 'recall', 'compact'], "Claude Code's Edit is one tool, Copilot's edit a set");
    assert.deepEqual(allowed(['search/codebase', 'agent/runSubagent']), ['read_file', 'list_files', 'grep_search', 'task', 'recall', 'compact']);
    assert.deepEqual(allowed([]), ['recall', 'compact']);
  });

  it("selects MCP tools by Claude Code's and Copilot's forms, and the deferred stand-ins with them", () => {
    assert.deepEqual(allowed(['mcp__github__get_issue']), ['recall', 'compact', 'mcp__github__get_issue', 'mcp_call']);
    assert.deepEqual(allowed(['mcp__github__*']), ['recall', 'compact', 'mcp__github__get_issue', 'mcp__github__create_pr', 'mcp_call']);
    assert.deepEqual(allowed(['mcp__github']), allowed(['mcp__github__*']));
    assert.deepEqual(allowed(['github/*']), allowed(['mcp__github__*']));
    assert.deepEqual(allowed(['my.db/*']), ['recall', 'compact', 'mcp__my_db__query', 'mcp_call'], "a server's name as configured");
    assert.deepEqual(allowed(['github/create_pr']), ['recall', 'compact', 'mcp__github__create_pr', 'mcp_call']);
    const { restriction } = parseToolList(['mcp__jira__*', 'github/*'], where);
    assert.deepEqual(unmatchedMcpEntries(restriction, offered), ['mcp__jira__*']);
  });

  it('reports names it does not know and entries that would grant approvals elsewhere', () => {
    const { notices } = parseToolList(['Read', 'NotebookEdit', 'githubRepo', 'Bash(npm test:*)', 'Read(./src/**)', 'execute/runInTerminal'], where);
    assert.deepEqual(notices.map((item) => [item.kind, item.entries]), [
      ['unknown-tool', ['NotebookEdit', 'githubRepo']],
      ['grant-ignored', ['Bash(npm test:*)', 'Read(./src/**)']],
    ]);
    assert.deepEqual(allowed(['Bash(npm test:*)']), ['run_shell', 'recall', 'compact'], 'the tool is offered, the pattern grants nothing');
  });

  it("knows every Claude Code name of the shared table, the web tools' too, and no name of Object's prototype", () => {
    const { restriction, notices } = parseToolList(['WebFetch', 'WebSearch', 'MultiEdit', 'Agent', 'web_fetch'], where);
    assert.deepEqual(notices, []);
    assert.deepEqual([...restriction.tools].sort(), ['edit_file', 'task', 'web_fetch', 'web_search']);
    assert.deepEqual(parseToolList(['constructor', 'toString'], where).notices.map((item) => [item.kind, item.entries]), [['unknown-tool', ['constructor', 'toString']]]);
  });

  it('never widens: each restriction only removes', () => {
    const plan = offered.filter((tool) => !['write_file', 'edit_file', 'run_shell'].includes(tool.name));
    const wide = parseToolList(['Write', 'Bash', 'Read'], where).restriction;
    const narrow = parseToolList(['Read', 'Grep'], where).restriction;
    assert.deepEqual(restrictTools(plan, wide).map((tool) => tool.name), ['read_file', 'recall', 'compact']);
    assert.deepEqual(restrictTools(offered, wide, narrow).map((tool) => tool.name), ['read_file', 'recall', 'compact']);
    assert.deepEqual(restrictTools(offered, undefined).length, offered.length);
  });
});

describe('definitions: a model by name', () => {
  it("turns Copilot's display names into ids and keeps ids as they are", () => {
    assert.equal(modelIdOf('Claude Sonnet 4.5 (copilot)'), 'claude-sonnet-4-5');
    assert.equal(modelIdOf('Claude Opus 4.5'), 'claude-opus-4-5');
    assert.equal(modelIdOf('GPT-4o'), 'gpt-4o');
    assert.equal(modelIdOf('GPT-5.2'), 'gpt-5.2', "OpenAI's ids keep their dots");
    assert.equal(modelIdOf('claude-3-5-haiku-20241022'), 'claude-3-5-haiku-20241022');
  });

  it('chooses the first model the caller can serve, in the order listed; inherit chooses nothing', () => {
    const served = new Set(['gpt-5.2', 'claude-sonnet-4-5']);
    const available = (id: string) => served.has(id);
    assert.deepEqual(chooseModel(['Claude Opus 4.5', 'GPT-5.2'], available), { model: 'gpt-5.2', tried: ['Claude Opus 4.5', 'GPT-5.2'] });
    assert.deepEqual(chooseModel(['claude-sonnet-4-5'], available), { model: 'claude-sonnet-4-5', tried: ['claude-sonnet-4-5'] });
    assert.deepEqual(chooseModel(['Gemini 2.5 Pro'], available), { tried: ['Gemini 2.5 Pro'] });
    assert.deepEqual(chooseModel(['inherit'], available), { tried: [] });
    assert.deepEqual(chooseModel(undefined, available), { tried: [] });
  });
});
