// Issue 27 item 6: what the core says is a kind with data, worded by the front end in the user's language.
import * as assert from 'node:assert/strict';
import { settingRef, userText, userTextForLog, verbatim, type UserText } from '../../src/core/texts/userText';
import { configureWords, USER_TEXT_WORDS, userTextTemplates, word, wordFrom } from '../../src/frontends/words';
import { wordsFor } from '../../src/frontends/words/template';
import { wordEvent } from '../../src/frontends/words/wordEvent';

/** A kind the tests word with a table of their own (the core's kinds come with their subsystems). */
const said = (kind: string, data: Record<string, unknown>): UserText => ({ kind, data }) as unknown as UserText;

describe('frontends/words: the core says kinds, a front end words them', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('shows text that is not ours exactly as it came, braces included', () => {
    assert.equal(word(verbatim('ENOENT: no such file {0} {text}')), 'ENOENT: no such file {0} {text}');
  });

  it("fills named placeholders; numbers and lists in the user's locale; nested kinds worded first", () => {
    const table = { outer: '{count} tokens in {files}: {why}', inner: 'because {name}', sent: { one: 'one request', other: '{count} requests' } };
    const text = said('outer', { count: 12345, files: ['a.ts', 'b.ts', 'c.ts'], why: said('inner', { name: 'x' }) });
    assert.equal(wordFrom(table, text), '12,345 tokens in a.ts, b.ts, and c.ts: because x');
    configureWords({ locale: 'de', voice: 'cli' });
    assert.equal(wordFrom(table, text), '12.345 tokens in a.ts, b.ts und c.ts: because x');
    assert.equal(wordFrom(table, said('sent', { count: 1 })), 'one request');
    assert.equal(wordFrom(table, said('sent', { count: 3 })), '3 requests');
  });

  it('takes the template from the message bundle when the extension configured one', () => {
    const table = { greet: 'Hello {name}' };
    configureWords({ locale: 'fr', voice: 'extension', bundle: { 'Hello {name}': 'Bonjour {name}' } });
    assert.equal(wordFrom(table, said('greet', { name: 'Ada' })), 'Bonjour Ada');
    configureWords({ locale: 'en', voice: 'cli' });
    assert.equal(wordFrom(table, said('greet', { name: 'Ada' })), 'Hello Ada', 'back to English without a bundle');
  });

  it('words a kind it has no template for as its kind and data (a record from a newer Evergreen), never throws', () => {
    const text = said('from.the.future', { n: 1 });
    assert.equal(word(text), userTextForLog(text));
    assert.equal(word(text), 'from.the.future {"n":1}');
  });

  it('words a damaged record without throwing: a kind named like an object property, data that is no text', () => {
    for (const kind of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) assert.equal(word(said(kind, {})), `${kind} {}`, kind);
    const table = { ended: 'A hook ended the turn: {reason}' };
    assert.equal(wordFrom(table, said('ended', { reason: null })), 'A hook ended the turn: null');
    assert.equal(wordFrom(table, said('ended', { reason: { a: 1 } })), 'A hook ended the turn: {"a":1}');
    assert.equal(wordFrom(table, said('ended', { reason: ['a', 2] })), 'A hook ended the turn: ["a",2]');
    assert.equal(wordFrom(table, said('ended', {})), 'A hook ended the turn: {reason}', 'a missing value leaves its placeholder as written');
  });

  it('has a template for every kind, and gives the bundle every template', () => {
    for (const [kind, template] of Object.entries(USER_TEXT_WORDS)) assert.ok(typeof template === 'string' ? template.length > 0 : Object.keys(template).length === 2, kind);
    assert.ok(userTextTemplates().includes('{text}'));
    assert.ok(userTextTemplates().every((template) => typeof template === 'string' && template.length > 0));
  });

  it("checks a table at compile time: a placeholder must name a key of its kind's data", () => {
    const checked = wordsFor<{ a: { name: string } }>();
    assert.deepEqual(checked({ a: 'hi {name}' }), { a: 'hi {name}' });
    // @ts-expect-error -- {nmae} is not in the data: the table does not compile.
    checked({ a: 'hi {nmae}' });
    // @ts-expect-error -- every kind needs a template.
    checked({});
  });

  it('words every UserText an event carries before a front end sees it', () => {
    const notice = wordEvent({ type: 'mcp_notice', level: 'warning', message: verbatim('server x failed') });
    assert.equal(notice.type, 'mcp_notice');
    assert.equal(notice.type === 'mcp_notice' && notice.message, 'server x failed');
    const error = wordEvent({ type: 'error', kind: 'internal', message: verbatim('boom'), hint: verbatim('try again'), actions: [] });
    assert.equal(error.type, 'error');
    assert.deepEqual(error.type === 'error' && [error.message, error.hint], ['boom', 'try again']);
    const plain = wordEvent({ type: 'text_delta', turnId: 't', text: 'hi' });
    assert.deepEqual(plain, { type: 'text_delta', turnId: 't', text: 'hi' });
  });

  it("words a sentence in each front end's own terms: the extension's setting, the CLI's flag", () => {
    const table = { learned: { extension: 'Set {setting} to {value} to skip this.', cli: 'Run with {setting} {value} to skip this.' } };
    const text = said('learned', { setting: settingRef('contextWindow'), value: '12000' });
    assert.equal(wordFrom(table, text), 'Run with --context-window 12000 to skip this.', 'the CLI (its default voice) names its flag');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(wordFrom(table, text), 'Set evergreen.contextWindow to 12000 to skip this.');
    configureWords({ locale: 'en', voice: 'cli' });
    assert.equal(word(settingRef('no.such.setting')), 'evergreen.no.such.setting', 'a setting without a flag is named by its id');
  });

  it('builds a kind with its data for the core', () => {
    assert.deepEqual(userText('verbatim', { text: 'x' }), verbatim('x'));
  });
});
