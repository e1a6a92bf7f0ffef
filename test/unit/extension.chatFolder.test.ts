/**
 * Which folder a chat works in, in a multi-root workspace (issue 33; src/extension/chatFolderChoice.ts):
 * the only folder, a resumed chat's own folder, the folder chosen last, or a question.
 */
import assert from 'node:assert/strict';
import { decideChatFolder } from '../../src/extension/chatFolderChoice';

describe('the chat’s folder', () => {
  const folders = ['/w/api', '/w/web', '/w/docs'];

  it('has none to offer without a folder on disk', () => {
    assert.deepEqual(decideChatFolder({ folders: [] }), { kind: 'none' });
    assert.deepEqual(decideChatFolder({ folders: [], resumed: '/w/api', remembered: '/w/api' }), { kind: 'none' });
  });

  it('uses the only folder, whatever was remembered or resumed', () => {
    assert.deepEqual(decideChatFolder({ folders: ['/w/api'] }), { kind: 'use', folder: '/w/api' });
    assert.deepEqual(decideChatFolder({ folders: ['/w/api'], remembered: '/w/gone', resumed: '/w/moved' }), { kind: 'use', folder: '/w/api' });
  });

  it('asks in a multi-root workspace until a choice is remembered, then uses it for new chats', () => {
    assert.deepEqual(decideChatFolder({ folders }), { kind: 'ask', reason: 'several' }, 'not the first folder by default');
    assert.deepEqual(decideChatFolder({ folders, remembered: '/w/web' }), { kind: 'use', folder: '/w/web' });
    assert.deepEqual(decideChatFolder({ folders, remembered: '/w/removed' }), { kind: 'ask', reason: 'several' }, 'a folder no longer in the workspace is asked again');
  });

  it('resumes a chat in its own folder, not the remembered one, and asks when that folder left the workspace', () => {
    assert.deepEqual(decideChatFolder({ folders, remembered: '/w/web', resumed: '/w/docs' }), { kind: 'use', folder: '/w/docs' });
    assert.deepEqual(decideChatFolder({ folders, remembered: '/w/web', resumed: '/w/old' }), { kind: 'ask', reason: 'resumedFolderGone' });
  });
});
