/**
 * The built-in slash commands' and modes' descriptions are kinds (src/core/texts/builtins.ts): each
 * reads the English the `/` picker, /help and the mode picker showed before, the panel's rows and
 * a mode switch's line get strings, and a translation reaches them. A mode file's own description
 * stays its author's text.
 */
import assert from 'node:assert/strict';
import { BUILT_IN_COMMANDS } from '../../src/core/commands/builtin';
import { BUILT_IN_MODES, loadModes, findMode } from '../../src/core/modes/modes';
import { commandOptions, slashHelp } from '../../src/frontends/slashCommands';
import { configureWords } from '../../src/frontends/words';
import { wordEvent } from '../../src/frontends/words/wordEvent';
import { customizationFolders } from '../support/customization';
import { said } from '../support/said';

const EMPTY_CATALOG = { commands: [], notices: [], skills: [] };

describe('built-in commands and modes: their descriptions in words', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words every built-in command and its hint as before', () => {
    const read = BUILT_IN_COMMANDS.map((command) => [command.name, command.description.kind, said(command.description), command.argumentHint && said(command.argumentHint)]);
    assert.deepEqual(read, [
      ['help', 'commands.helpDescription', 'Lists the commands, or says what one does.', '[command]'],
      ['new', 'commands.newDescription', 'Starts a new chat.', undefined],
      ['resume', 'commands.resumeDescription', 'Opens an earlier chat.', '[title or id]'],
      ['compact', 'commands.compactDescription', 'Summarizes the conversation now to free context, keeping what you name.', '[focus]'],
      ['context', 'commands.contextDescription', 'Shows what the context holds, line by line.', undefined],
      ['model', 'commands.modelDescription', 'Shows the model, or switches to another.', '[model id]'],
      ['mode', 'commands.modeDescription', 'Shows the mode, or switches (agent, plan, or a custom mode).', '[mode]'],
      ['thinking', 'commands.thinkingDescription', 'Shows or sets extended thinking.', '[off | auto | budget in tokens]'],
      ['memory', 'commands.memoryDescription', "Opens this workspace's memory folder.", undefined],
      ['init', 'commands.initDescription', 'Explores the workspace and proposes an AGENTS.md (written through the normal approval).', undefined],
    ]);
    assert.deepEqual(
      BUILT_IN_COMMANDS.flatMap((command) => (command.argumentHint ? [command.argumentHint.kind] : [])),
      ['commands.helpHint', 'commands.resumeHint', 'commands.compactHint', 'commands.modelHint', 'commands.modeHint', 'commands.thinkingHint'],
    );
  });

  it('words the agent and plan modes, and a mode file with nothing to say by where it comes from', async () => {
    assert.deepEqual(
      BUILT_IN_MODES.map((mode) => [mode.name, mode.description.kind, said(mode.description)]),
      [
        ['agent', 'modes.agentDescription', 'Works on the task: reads, edits files and runs commands under your approval settings.'],
        ['plan', 'modes.planDescription', 'Researches and proposes a plan; changes nothing until you build it.'],
      ],
    );
    const folders = customizationFolders({ fixtures: false });
    try {
      folders.write(folders.workspace, '.evergreen/modes/quiet.md', '---\nmodel: claude-sonnet-4-5\n---\n');
      folders.write(folders.workspace, '.evergreen/modes/mine.md', '---\ndescription: "Mine, {braces} as written"\n---\nDo it.');
      const { modes } = await loadModes({ workspaceRoot: folders.workspace, workspaceTrusted: true, home: folders.home });
      const quiet = findMode(modes, 'quiet')!.description;
      assert.equal(quiet.kind, 'modes.customDescription');
      assert.equal(said(quiet), 'Custom mode from .evergreen/modes/quiet.md');
      const mine = findMode(modes, 'mine')!.description;
      assert.equal(mine.kind, 'verbatim', "a file's description is its author's text");
      assert.equal(said(mine), 'Mine, {braces} as written');
    } finally {
      folders.cleanup();
    }
  });

  it('gives the picker, /help and a mode switch strings, in the configured language', () => {
    configureWords({ locale: 'fr', voice: 'extension', bundle: { 'Starts a new chat.': 'Commence une nouvelle discussion.', '[title or id]': '[titre ou id]' } });
    const rows = commandOptions('', EMPTY_CATALOG);
    assert.deepEqual(rows.find((row) => row.name === 'new'), { name: 'new', description: 'Commence une nouvelle discussion.', source: 'built-in' });
    assert.equal(rows.find((row) => row.name === 'resume')?.argumentHint, '[titre ou id]');
    assert.ok(slashHelp(undefined, EMPTY_CATALOG, 'extension').split('\n').includes('/new: Commence une nouvelle discussion.'));
    configureWords({ locale: 'en', voice: 'cli' });
    assert.ok(slashHelp(undefined, EMPTY_CATALOG, 'cli').split('\n').includes('/resume [title or id]: Opens an earlier chat.'));
    const plan = BUILT_IN_MODES.find((mode) => mode.name === 'plan')!;
    const shown = wordEvent({ type: 'mode_changed', mode: plan.name, reason: 'switch', description: plan.description });
    assert.equal(shown.type === 'mode_changed' && shown.description, 'Researches and proposes a plan; changes nothing until you build it.');
  });
});
