/**
 * Slash commands loaded from files (src/core/commands/fileCommands.ts): every source, with files
 * shaped like the ones Claude Code and Copilot users keep (test/fixtures/customization), which one
 * wins a name, an untrusted workspace, and every kind of bad file, each a notice while the rest loads.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFileCommands, type CommandDefinition } from '../../src/core/commands/fileCommands';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { said } from '../support/said';

describe('commands: loading from files', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  beforeEach(() => {
    folders = customizationFolders();
  });
  afterEach(() => folders.cleanup());

  const load = (trusted = true) => loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: trusted, home: folders.home });
  const named = (commands: readonly CommandDefinition[], name: string): CommandDefinition => {
    const found = commands.find((command) => command.name === name);
    assert.ok(found, `no command ${name} in ${commands.map((command) => command.name).join(', ')}`);
    return found;
  };

  it('turns every bad file into a notice and loads the rest', async () => {
    const { workspace, outside, write } = folders;
    write(workspace, '.claude/commands/broken.md', '---\ndescription: a\ndescription: b\n---\nbody');
    write(workspace, '.claude/commands/unclosed.md', '---\ndescription: never closed\nbody');
    write(workspace, '.claude/commands/list.md', '---\n- a\n- b\n---\nbody');
    write(workspace, '.claude/commands/binary.md', Buffer.from([0x2d, 0x2d, 0x00, 0x01]));
    write(workspace, '.claude/commands/latin1.md', Buffer.from('R\xe9sum\xe9 the changes.\n', 'latin1'));
    write(workspace, '.claude/commands/huge.md', `${'x'.repeat(300 * 1024)}\n`);
    write(workspace, '.claude/commands/my command.md', 'Spaces cannot be typed.');
    write(outside, 'secret.md', 'SECRET FROM OUTSIDE');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(workspace, '.claude/commands/leak.md'));
    execFileSync('mkfifo', [path.join(workspace, '.claude/commands/pipe.md')]);
    const { commands, notices } = await load();
    const names = commands.map((command) => command.name);
    for (const bad of ['broken', 'unclosed', 'list', 'binary', 'huge', 'leak', 'pipe']) assert.ok(!names.includes(bad), `${bad} must not load`);
    assert.ok(names.includes('review-pr') && names.includes('latin1'), 'the good files still load');
    assert.equal(named(commands, 'latin1').body.trim(), 'Résumé the changes.');
    const about = (file: string) => notices.filter((item) => item.file === `.claude/commands/${file}`);
    assert.match(said(about('broken.md')[0]!.message), /not valid YAML.*line 3/);
    assert.equal(about('broken.md')[0]!.kind, 'invalid-frontmatter');
    assert.match(said(about('unclosed.md')[0]!.message), /never closed/);
    assert.match(said(about('list.md')[0]!.message), /must be a mapping/);
    assert.match(said(about('binary.md')[0]!.message), /binary/);
    assert.equal(about('latin1.md')[0]!.kind, 'not-utf8');
    assert.match(said(about('huge.md')[0]!.message), /larger than 256 KB/);
    assert.match(said(about('my command.md')[0]!.message), /cannot be typed/);
    assert.equal(about('leak.md')[0]!.kind, 'unreadable');
    assert.match(said(about('leak.md')[0]!.message), /outside the workspace root/);
    assert.match(said(about('pipe.md')[0]!.message), /named pipe/);
    assert.ok(!JSON.stringify(commands).includes('SECRET FROM OUTSIDE'));
  });
});
