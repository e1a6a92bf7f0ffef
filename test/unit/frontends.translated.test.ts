/**
 * The front ends' own words (src/frontends, shared by the extension and the CLI) go through
 * @vscode/l10n: with the extension's bundle configured they read in the user's language, and the
 * CLI, which never configures one, reads English.
 */
import { strict as assert } from 'node:assert';
import { attentionText, chatListRow } from '../../src/frontends/chatBoard';
import { hunkRow } from '../../src/frontends/hunkReview';
import { slashHelp } from '../../src/frontends/slashCommands';
import { configureWords } from '../../src/frontends/words';

describe('frontends: words in the user language', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('reads a notification, a row and a label from the configured bundle, its values in place', () => {
    configureWords({
      locale: 'fr',
      voice: 'extension',
      bundle: {
        'Evergreen: the chat {0} is waiting for your approval.': 'Evergreen : la discussion {0} attend votre accord.',
        'Lines {0}–{1}': 'Lignes {0} à {1}',
        'waiting for approval': 'en attente d’accord',
        'Click to show it in the chat panel.': 'Cliquez pour l’afficher dans le panneau.',
      },
    });
    assert.equal(attentionText('approval', 'Fix the login', 'waiting'), 'Evergreen : la discussion "Fix the login" attend votre accord.');
    assert.equal(hunkRow({ header: '@@ -3,2 +3,4 @@', lines: [] }, undefined).label, 'Lignes 3 à 6');
    const row = chatListRow({ title: 'Fix the login', activity: 'waiting', shown: false });
    assert.equal(row.description, 'en attente d’accord');
    assert.equal(row.tooltip, 'Fix the login (en attente d’accord)\nCliquez pour l’afficher dans le panneau.');
  });

  it('reads English without a bundle, as the CLI does', () => {
    assert.equal(attentionText('approval', 'Fix the login', 'waiting'), 'Evergreen: the chat "Fix the login" is waiting for your approval.');
    assert.equal(hunkRow({ header: '@@ -3,2 +3,4 @@', lines: [] }, undefined).label, 'Lines 3–6');
  });

  it("/help tells how a command is picked in each front end, naming nothing of the other's", () => {
    const catalog = { commands: [], notices: [], skills: [] };
    const [panel] = slashHelp(undefined, catalog, 'extension').split('\n');
    const [cli] = slashHelp(undefined, catalog, 'cli').split('\n');
    assert.equal(panel, 'Commands (type / in the message box to pick one):');
    assert.equal(cli, 'Commands (run one with -p "/name arguments"):');
  });
});
