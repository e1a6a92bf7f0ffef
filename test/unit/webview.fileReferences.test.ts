import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { fileReferences } from '../../src/webview/fileReferences';

const render = (text: string) => new MarkdownIt({ html: false, linkify: true }).use(fileReferences).render(text).trim();

describe('webview: file references in model text are links to the file at that line', () => {
  it('links a path with a line, in text and in inline code, the link opening its first line', () => {
    assert.equal(render('The crash is in src/app.ts:4, see it.'), '<p>The crash is in <a href="src/app.ts:4" title="Open src/app.ts at line 4">src/app.ts:4</a>, see it.</p>');
    assert.equal(render('Look at `lib/x.py:10-20` and `main.go:3:7`.'), '<p>Look at <a href="lib/x.py:10" title="Open lib/x.py at line 10"><code>lib/x.py:10-20</code></a> and <a href="main.go:3" title="Open main.go at line 3"><code>main.go:3:7</code></a>.</p>');
  });

  it('leaves alone what is no reference: no line, no extension, a URL, a version, text already in a link', () => {
    const hrefs = (text: string) => [...render(text).matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
    assert.deepEqual(hrefs('Edit src/app.ts next.'), []);
    assert.deepEqual(hrefs('Call it at 10:30.'), []);
    assert.deepEqual(hrefs('Version v1.2:3 and e.g. 4:5.'), []);
    assert.deepEqual(hrefs('See https://example.com/a.ts:4 for more.'), ['https://example.com/a.ts:4']);
    assert.deepEqual(hrefs('A [src/b.ts:9](https://x.dev) beside src/a.ts:4'), ['https://x.dev', 'src/a.ts:4']);
  });
});
