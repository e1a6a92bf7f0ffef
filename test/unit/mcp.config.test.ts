import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadMcpConfig } from '../../src/core/mcp/load';
import { mergeMcpConfigs, parseMcpConfigText, parseMcpConfigValue, type McpOrigin } from '../../src/core/mcp/config';
import { decide, type ApprovalPolicy } from '../../src/core/approvals/approval';
import { McpToolNames, mcpToolName } from '../../src/core/mcp/names';
import { useTempDirs } from '../support/tempDirs';
import { said } from '../support/said';
import { userText, type UserText } from '../../src/core/texts/userText';

const workspace = (source: string): McpOrigin => ({ scope: 'workspace', source });
const vars = { env: { TOKEN: 's3cret', HOME: '/home/u' }, workspaceFolder: '/work/proj' };

describe('MCP configuration', () => {
  it("reads VS Code's mcp.json (comments, trailing commas, type inferred or given)", () => {
    const text = `{
      // VS Code allows comments
      "servers": {
        "files": { "type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "\${workspaceFolder}"], "env": { "A": "\${env:TOKEN}" } },
        "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${env:TOKEN}" } },
        "old": { "type": "sse", "url": "http://127.0.0.1:9/sse" },
        "inferred": { "command": "node", "args": ["server.js"], },
      },
    }`;
    const { servers, problems } = parseMcpConfigText(text, workspace('.vscode/mcp.json'), vars);
    assert.deepEqual(problems, []);
    assert.deepEqual(servers.map((server) => [server.name, server.transport.type]), [['files', 'stdio'], ['remote', 'http'], ['old', 'sse'], ['inferred', 'stdio']]);
    const files = servers[0]!.transport;
    assert.ok(files.type === 'stdio');
    assert.deepEqual(files.args, ['-y', 'server-filesystem', '/work/proj']);
    assert.deepEqual(files.env, { A: 's3cret' });
    const remote = servers[1]!.transport;
    assert.ok(remote.type === 'http');
    assert.equal(remote.headers.Authorization, 'Bearer s3cret');
    // What the consent prompt shows: as written, so a secret a repository passes on is visible.
    assert.equal(servers[0]!.display, "A='${env:TOKEN}' npx -y server-filesystem '${workspaceFolder}'");
    assert.equal(servers[1]!.display, 'http https://mcp.example.com/mcp (headers: Authorization: Bearer ${env:TOKEN})');
  });

  it("reads Claude Code's .mcp.json and the setting's bare map", () => {
    const claude = parseMcpConfigText(JSON.stringify({ mcpServers: { db: { command: 'db-mcp', args: ['--ro'] }, web: { type: 'http', url: 'http://127.0.0.1:1/mcp' } } }), workspace('.mcp.json'), vars);
    assert.deepEqual(claude.problems, []);
    assert.deepEqual(claude.servers.map((server) => server.display), ['db-mcp --ro', 'http http://127.0.0.1:1/mcp']);
    const setting = parseMcpConfigValue({ db: { command: 'db-mcp' } }, { scope: 'user', source: 'evergreen.mcp.servers' }, vars, { bare: true });
    assert.deepEqual(setting.servers.map((server) => server.name), ['db']);
  });

  it('names the file and the JSON path of every problem, and keeps the good servers', () => {
    const text = JSON.stringify({
      servers: {
        good: { command: 'ok' },
        noCommand: { type: 'stdio' },
        badArgs: { command: 'x', args: ['a', 3] },
        badType: { type: 'websocket', url: 'ws://x' },
        badUrl: { type: 'http', url: 'not a url' },
        fileUrl: { type: 'http', url: 'file:///etc/passwd' },
        missingEnv: { type: 'http', url: 'https://x', headers: { Authorization: 'Bearer ${env:NOPE}' } },
        input: { command: 'x', env: { KEY: '${input:api-key}' } },
        'odd name': 5,
      },
    });
    const { servers, problems } = parseMcpConfigText(text, workspace('/p/.vscode/mcp.json'), vars);
    assert.deepEqual(servers.map((server) => server.name), ['good']);
    const byWhere = Object.fromEntries(problems.map((problem) => [problem.where, said(problem.message)]));
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.noCommand.command'] ?? '', /needs "command"/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.badArgs.args[1]'] ?? '', /must be a string/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.badType.type'] ?? '', /unknown type "websocket"/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.badUrl.url'] ?? '', /not a URL/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.fileUrl.url'] ?? '', /only http and https/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.missingEnv.headers.Authorization'] ?? '', /NOPE is not set/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers.input.env.KEY'] ?? '', /input prompts are not supported/);
    assert.match(byWhere['/p/.vscode/mcp.json $.servers["odd name"]'] ?? '', /must be an object/);
  });

  it('names every kind of bad definition at its field, in words that say what to write', () => {
    const cases: Array<[definition: unknown, at: string, message: RegExp]> = [
      [5, '', /^must be an object$/],
      [['command'], '', /^must be an object$/],
      [{ command: '  ' }, '.command', /^a stdio server needs "command" \(a string\)$/],
      [{ type: 'stdio', url: 'https://x' }, '.command', /needs "command"/],
      [{ command: 'x', args: 'a b' }, '.args', /^must be an array of strings$/],
      [{ command: 'x', env: ['A=1'] }, '.env', /^must be an object of strings$/],
      [{ command: 'x', env: { 'odd key': 1 } }, '.env["odd key"]', /^must be a string$/],
      [{ command: 'x', cwd: 1 }, '.cwd', /^must be a string$/],
      [{ command: 'x', cwd: '${workspaceFolder}/srv' }, '.cwd', /no folder is open/],
      [{ command: 'x', args: ['${foo}'] }, '.args[0]', /^unknown variable \$\{foo\} \(supported: /],
      [{ type: 3 }, '.type', /^unknown type 3 \(expected "stdio", "http" or "sse"\)$/],
      [{ type: 'sse' }, '.url', /^an sse server needs "url" \(a string\)$/],
      [{ url: '' }, '.url', /^an http server needs "url" \(a string\)$/],
      [{ url: 'https://x', headers: 'Authorization: x' }, '.headers', /^must be an object of strings$/],
      [{ url: 'https://x', headers: { A: 2 } }, '.headers.A', /^must be a string$/],
      [{ url: 'https://${env:NOPE}/mcp' }, '.url', /NOPE is not set/],
    ];
    for (const [definition, at, message] of cases) {
      const { servers, problems } = parseMcpConfigValue({ s: definition }, workspace('m'), { env: {} }, { bare: true });
      assert.equal(servers.length, 0, JSON.stringify(definition));
      assert.equal(problems.length, 1, JSON.stringify(definition));
      assert.equal(problems[0]!.where, `m $.s${at}`, JSON.stringify(definition));
      assert.equal(problems[0]!.message.kind, 'verbatim', 'a check\'s own words, shown as they are');
      assert.match(said(problems[0]!.message), message, JSON.stringify(definition));
    }
    // Fields VS Code's file has and Evergreen does not use are no problem.
    assert.deepEqual(parseMcpConfigValue({ s: { command: 'x', envFile: '.env', dev: { watch: 'src/**' } } }, workspace('m'), { env: {} }, { bare: true }).problems, []);
  });

  it('keeps the consent keys of before: an upgrade asks no consent again', () => {
    const servers = parseMcpConfigValue(
      { s: { command: 'srv', args: ['--a'], env: { T: '${env:T}' } }, h: { url: 'https://x/mcp', headers: { A: 'b' } }, e: { type: 'sse', url: 'http://127.0.0.1:1/sse' } },
      workspace('m'),
      { env: { T: '1' } },
      { bare: true },
    ).servers;
    assert.deepEqual(
      servers.map((server) => server.consentKey),
      ['7281b079146897c1cd345897a1c27b8fa05e7b1634328cac3d95ba33acdf3713', 'd89d016a6336e355facc2f0a9161e1e6bbd8dbc93352cb9b2185fd1ac7de365b', 'eefe54b0f79f00052f6bc71ec857800b38b7f65bd8f89d981dc0a61e4ac19d7f'],
    );
  });

  it('reports a file that is not JSON, or of neither format, with where', () => {
    const broken = parseMcpConfigText('{ "servers": { "a": ', workspace('mcp.json'), vars);
    assert.equal(broken.servers.length, 0);
    assert.equal(broken.problems[0]!.message.kind, 'start.mcpConfigNotJson');
    assert.match(said(broken.problems[0]!.message), /^not valid JSON: \w+ at line 1, column 21$/);
    const other = parseMcpConfigText('{"tools": {}}', workspace('mcp.json'), vars);
    assert.equal(said(other.problems[0]!.message), 'has neither "servers" (VS Code\'s mcp.json) nor "mcpServers" (Claude Code\'s .mcp.json)');
    assert.equal(said(parseMcpConfigText('[1]', workspace('mcp.json'), vars).problems[0]!.message), 'must be a JSON object');
    const notMap = parseMcpConfigText('{"servers": [1]}', workspace('mcp.json'), vars).problems[0]!;
    assert.deepEqual([notMap.where, said(notMap.message)], ['mcp.json $.servers', 'must be an object of server definitions']);
  });

  it('keeps the first of two servers with one name and says so', () => {
    const user = parseMcpConfigValue({ db: { command: 'a' } }, { scope: 'user', source: 'evergreen.mcp.servers' }, vars, { bare: true });
    const ws = parseMcpConfigText(JSON.stringify({ mcpServers: { db: { command: 'b' } } }), workspace('.mcp.json'), vars);
    const merged = mergeMcpConfigs([user, ws]);
    assert.deepEqual(merged.servers.map((server) => server.display), ['a']);
    assert.equal(said(merged.problems[0]!.message), 'a server named "db" is already defined in evergreen.mcp.servers; this one is ignored (rename one of them)');
  });

  it('changes the consent key when the definition changes, not when a variable does', () => {
    const key = (definition: unknown, env: Record<string, string>) => parseMcpConfigValue({ s: definition }, workspace('m'), { env }, { bare: true }).servers[0]!.consentKey;
    const base = { command: 'srv', args: ['--a'], env: { T: '${env:T}' } };
    assert.equal(key(base, { T: '1' }), key(base, { T: '2' }));
    assert.notEqual(key(base, { T: '1' }), key({ ...base, args: ['--b'] }, { T: '1' }));
    assert.notEqual(key(base, { T: '1' }), key({ ...base, command: 'other' }, { T: '1' }));
    assert.notEqual(key(base, { T: '1' }), key({ ...base, env: { T: 'x', NODE_OPTIONS: '--require evil' } }, { T: '1' }));
  });
});

describe('MCP tool names', () => {
  it('are mcp__server__tool, sanitized to [A-Za-z0-9_-] and at most 64 characters', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'mcp__github__create_issue');
    assert.equal(mcpToolName('my server', 'get.thing/x'), 'mcp__my_server__get_thing_x');
    const long = mcpToolName('a'.repeat(40), 'b'.repeat(40));
    assert.equal(long.length, 64);
    assert.match(long, /^[A-Za-z0-9_-]+$/);
  });

  it('are unique even when tools collide after sanitizing or cutting, and never take a built-in name', () => {
    const names = new McpToolNames(['read_file', 'mcp__s__x']);
    const a = names.claim('s', 'x');
    const b = names.claim('s', 'x.');
    const c = names.claim('s', 'x/');
    const longA = names.claim('s', `${'t'.repeat(70)}1`);
    const longB = names.claim('s', `${'t'.repeat(70)}2`);
    const all = [a, b, c, longA, longB];
    assert.equal(new Set([...all, 'mcp__s__x']).size, all.length + 1, all.join(' '));
    for (const name of all) assert.ok(name.length <= 64 && /^[A-Za-z0-9_-]+$/.test(name), name);
  });
});

describe('MCP approvals', () => {
  const call = (server: string, tool: string, fullName: string, serverHints: UserText[] = []) => ({ kind: 'mcp' as const, server, tool, fullName, arguments: '{}', serverHints });
  const policy = (overrides: Partial<ApprovalPolicy> = {}): ApprovalPolicy => ({ writes: 'auto', shell: 'auto', shellAllowList: ['git status'], ...overrides });

  it('ask by default, even with writes and shell on auto and a server that says its tool is read-only', () => {
    assert.equal(decide(policy(), call('github', 'get_issue', 'mcp__github__get_issue', [userText('approval.hintReadOnly', {})])), 'ask');
    assert.equal(decide(policy({ mcp: 'auto' }), call('github', 'get_issue', 'mcp__github__get_issue')), 'auto');
  });

  it('the allow list takes full names and one server\'s wildcard, and a wildcard never reaches another server', () => {
    const allow = policy({ mcpAllowList: ['mcp__github__get_issue', 'mcp__a__*'] });
    assert.equal(decide(allow, call('github', 'get_issue', 'mcp__github__get_issue')), 'auto');
    assert.equal(decide(allow, call('github', 'create_issue', 'mcp__github__create_issue')), 'ask');
    assert.equal(decide(allow, call('a', 'anything', 'mcp__a__anything')), 'auto');
    // Server "a__b"'s tool "c" is named mcp__a__b__c: it starts like server a's, and is not server a's.
    assert.equal(decide(allow, call('a__b', 'c', 'mcp__a__b__c')), 'ask');
    assert.equal(decide(policy({ mcpAllowList: ['mcp__*'] }), call('x', 'y', 'mcp__x__y')), 'ask');
  });
});

describe('MCP configuration files', () => {
  const temp = useTempDirs();

  it('a --mcp-config file that does not exist is a problem naming it; missing workspace files are not', async () => {
    const dir = temp.make('evergreen-mcp-load-');
    const missing = path.join(dir, 'nope.json');
    const loaded = await loadMcpConfig({ workspaceRoot: dir, readWorkspace: true, userFiles: [missing], env: {} });
    assert.deepEqual(loaded.servers, []);
    assert.equal(loaded.problems.length, 1, JSON.stringify(loaded.problems));
    assert.equal(loaded.problems[0]!.where, missing);
    assert.equal(loaded.problems[0]!.message.kind, 'start.mcpConfigUnreadable');
    assert.match(said(loaded.problems[0]!.message), /^cannot be read: .*ENOENT/);
  });

  it("reads the workspace's files only when told to (an untrusted workspace's are never read)", async () => {
    const dir = temp.make('evergreen-mcp-load-');
    fs.writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { repo: { command: 'x' } } }));
    assert.deepEqual((await loadMcpConfig({ workspaceRoot: dir, readWorkspace: false, env: {} })).servers, []);
    const read = await loadMcpConfig({ workspaceRoot: dir, readWorkspace: true, env: {} });
    assert.deepEqual(read.servers.map((server) => [server.name, server.origin.scope]), [['repo', 'workspace']]);
  });
});
