// How recall searches a document without a string per line (src/core/recall/recallSearch.ts), the
// regex worker's texts of whole lines, and the saved outputs' trigram filter: each must find exactly
// what a search line by line finds (recall's results are the same as before the index kept whole texts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { TranscriptRecall } from '../../src/core/recall/recallIndex';
import { firstMatchPerLine, lineAt, linesSegments, plainTextRegex, queryLine } from '../../src/core/recall/recallSearch';
import { mayContain, trigramFilter } from '../../src/core/recall/trigramFilter';
import { RegexWorker } from '../../src/core/regexWorker';
import { useTempDirs } from '../support/tempDirs';

/** Case pairs, a character a case-insensitive regex never folds to ASCII (ſ, K), ones whose cases differ in UTF-8 length (ⱥ Ⱥ), newlines. */
const CHARS = ['a', 'A', 'b', 'B', 's', 'S', 'ſ', 'k', 'K', '\u212a', 'é', 'É', 'ⱥ', 'Ⱥ', ' ', '.', '*', '\\', '"', '\n', '\n'];
const text = (max: number) => fc.array(fc.constantFrom(...CHARS), { maxLength: max }).map((chars) => chars.join(''));

/** What recall found before: each line's first match, line by line. */
function perLine(body: string, regex: RegExp): Array<[string, number, number]> {
  const found: Array<[string, number, number]> = [];
  for (const line of body.split('\n')) {
    regex.lastIndex = 0;
    const match = regex.exec(line);
    if (match) found.push([line, match.index, match[0].length]);
  }
  return found;
}

describe('recall search', () => {
  it('finds the first match of each line in one scan of the whole text, as a search line by line does', () => {
    fc.assert(
      fc.property(text(120), text(4), (body, query) => {
        const needle = queryLine(query);
        const found: Array<[string, number, number]> = [];
        firstMatchPerLine(body, plainTextRegex(needle), (lineStart, start, length) => found.push([lineAt(body, lineStart), start, length]));
        assert.deepEqual(found, perLine(body, new RegExp(plainTextRegex(needle).source, 'i')));
      }),
      { numRuns: 2000 },
    );
  });

  it('searches a query of several lines by its longest line', () => {
    assert.equal(queryLine('ab\nlongest\nc'), 'longest');
    assert.equal(queryLine('one line'), 'one line');
  });

  it('cuts a text into runs of whole lines that join back to it, none over the size unless one line is', () => {
    fc.assert(
      fc.property(text(200), fc.integer({ min: 1, max: 40 }), (body, max) => {
        const segments = linesSegments(body, max);
        assert.equal(segments.join('\n'), body);
        assert.deepEqual(segments.flatMap((segment) => segment.split('\n')), body.split('\n'));
        for (const segment of segments) assert.ok(segment.length <= max || !segment.includes('\n'), `${JSON.stringify(segment)} is over ${max} with more than one line`);
      }),
      { numRuns: 2000 },
    );
  });

  it('the regex worker finds, in texts of whole lines, what a search line by line finds', async function () {
    this.timeout(30_000);
    const signal = new AbortController().signal;
    for (const [pattern, flags] of [['^$', ''], ['^a', 'm'], ['b$', 'i'], ['a*', ''], ['(?<=a)b', 'i'], ['é|ⱥ', 'iu'], ['\\s', ''], ['k', 'i']] as const) {
      const worker = await RegexWorker.start(pattern, flags, signal);
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(text(60), { maxLength: 4 }), async (texts) => {
            const hits = await worker.find(texts, 5_000, signal);
            const found: Array<[string, number, number]> = [];
            for (let i = 0; i < hits.length; i += 4) found.push([lineAt(texts[hits[i]!]!, hits[i + 1]!), hits[i + 2]!, hits[i + 3]!]);
            assert.deepEqual(found, texts.flatMap((body) => perLine(body, new RegExp(pattern, flags))));
          }),
          { numRuns: 150 },
        );
      } finally {
        worker.close();
      }
    }
  });

  describe("a saved output's trigram filter", () => {
    it('never rules out a query the text matches, compared case-insensitively as recall compares', () => {
      fc.assert(
        fc.property(text(300), text(6), (body, query) => {
          const needle = queryLine(query);
          if (new RegExp(plainTextRegex(needle).source, 'i').test(body)) assert.equal(mayContain(trigramFilter(body), needle), true);
        }),
        { numRuns: 3000 },
      );
      // A match taken from the text itself, each character swapped for one the regex takes as equal: always "maybe".
      const SAME: Record<string, string> = { a: 'A', A: 'a', b: 'B', B: 'b', s: 'S', S: 's', k: 'K', K: 'k', é: 'É', É: 'é', ⱥ: 'Ⱥ', Ⱥ: 'ⱥ' };
      fc.assert(
        fc.property(text(300), fc.nat(), fc.integer({ min: 3, max: 12 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (body, at, length, swaps) => {
          const from = body.length === 0 ? 0 : at % body.length;
          const needle = [...queryLine(body.slice(from, from + length))].map((c, i) => (swaps[i] ? (SAME[c] ?? c) : c)).join('');
          assert.ok(new RegExp(plainTextRegex(needle).source, 'i').test(body), 'the swapped needle still matches');
          assert.equal(mayContain(trigramFilter(body), needle), true);
        }),
        { numRuns: 3000 },
      );
    });

    it('rules out what is not there, large files included', () => {
      const small = trigramFilter('export function compute(input: string): number { return input.length; }');
      assert.equal(mayContain(small, 'COMPUTE(input'), true);
      assert.equal(mayContain(small, 'zebra'), false);
      assert.equal(mayContain(small, 'ab'), true, 'a query under three characters cannot be ruled out');
      const lines = Array.from({ length: 50_000 }, (_, i) => `${String(i).padStart(6)} INFO request ${i * 7919} served in ${i % 977} ms`).join('\n');
      const large = trigramFilter(lines);
      assert.equal(mayContain(large, 'request 791900 served'), true);
      assert.equal(mayContain(large, 'WARN'), false);
      assert.equal(mayContain(large, 'timeout'), false);
      assert.ok(large.bits.length < lines.length / 100, `the filter (${large.bits.length} bytes) is a small fraction of the text (${lines.length} characters)`);
    });
  });

  describe('saved outputs', () => {
    const temp = useTempDirs();
    let dir: string;
    beforeEach(() => {
      dir = temp.make('evergreen-recall-saved-');
      fs.mkdirSync(path.join(dir, 'tool-results'));
    });

    it('are searched from their files, as they are now: once deleted, by the preview the transcript holds (what lookup then returns)', async () => {
      const file = path.join(dir, 'tool-results', 'toolu_log.txt');
      fs.writeFileSync(file, Array.from({ length: 3000 }, (_, i) => `log line ${i}: status ${i % 2 ? 'ok' : 'Überprüft'}`).join('\n'));
      const preview = '[Output too large for the context]\nlog line 0: status Überprüft\n…\nlog line 2999: status ok';
      const entries = [
        { type: 'message', ts: 't', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_log', name: 'run_shell', input: { command: 'make' } }] } },
        { type: 'persisted_output', ts: 't', toolUseId: 'toolu_log', toolName: 'run_shell', file, bytes: 1, lines: 3000 },
        { type: 'message', ts: 't', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_log', content: preview }] } },
      ];
      fs.writeFileSync(path.join(dir, 'transcript.jsonl'), entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
      const recall = new TranscriptRecall({ sessionDir: dir });
      const signal = new AbortController().signal;
      const middle = await recall.search({ kind: 'text', text: 'LOG LINE 1500:' }, 10, signal);
      assert.equal(middle.totalMatches, 1);
      assert.equal(middle.hits[0]?.toolUseId, 'toolu_log');
      assert.equal(middle.hits[0]?.excerpt, 'log line 1500: status Überprüft');
      assert.equal((await recall.search({ kind: 'regex', pattern: 'überprüft$', flags: 'i' }, 10, signal)).totalMatches, 1500);
      assert.equal((await recall.search({ kind: 'text', text: 'not in the log' }, 10, signal)).totalMatches, 0);
      fs.rmSync(file);
      assert.equal((await recall.search({ kind: 'text', text: 'log line 1500:' }, 10, signal)).totalMatches, 0);
      assert.equal((await recall.search({ kind: 'text', text: 'log line 2999:' }, 10, signal)).totalMatches, 1, 'the preview stands in');
      assert.equal((await recall.search({ kind: 'regex', pattern: 'überprüft$', flags: 'i' }, 10, signal)).totalMatches, 1, 'for a regex too');
    });

    it('an ASCII file and a UTF-8 one are searched as the same text they hold, by a regex in the worker too', async () => {
      const ascii = path.join(dir, 'tool-results', 'toolu_ascii.txt');
      const utf8 = path.join(dir, 'tool-results', 'toolu_utf8.txt');
      const lines = (mark: string) => Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(5)} ${i % 3 ? 'ok' : mark} line`).join('\n');
      fs.writeFileSync(ascii, lines('done'));
      fs.writeFileSync(utf8, lines('→ done'));
      const entries = ['toolu_ascii', 'toolu_utf8'].flatMap((id, i) => [
        { type: 'message', ts: 't', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'run_shell', input: { command: 'x' } }] } },
        { type: 'persisted_output', ts: 't', toolUseId: id, toolName: 'run_shell', file: i ? utf8 : ascii, bytes: 1, lines: 2000 },
        { type: 'message', ts: 't', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'preview' }] } },
      ]);
      fs.writeFileSync(path.join(dir, 'transcript.jsonl'), entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
      const recall = new TranscriptRecall({ sessionDir: dir });
      const signal = new AbortController().signal;
      const regex = await recall.search({ kind: 'regex', pattern: '^ *1\\d{3} (→ )?DONE', flags: 'i' }, 10, signal);
      assert.deepEqual([regex.totalMatches, regex.totalPlaces], [666, 2]);
      assert.deepEqual(regex.hits.map((hit) => [hit.toolUseId, hit.excerpt]).sort(), [['toolu_ascii', '1002 done line'], ['toolu_utf8', '1002 → done line']]);
      const text = await recall.search({ kind: 'text', text: '→ DONE' }, 10, signal);
      assert.deepEqual([text.totalMatches, text.hits[0]?.toolUseId], [667, 'toolu_utf8']);
    });
  });
});
