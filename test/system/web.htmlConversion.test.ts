/**
 * A fetched page is turned into markdown in a worker thread (src/core/web/htmlConversion.ts): the
 * same markdown as on the calling thread, while that thread's event loop keeps answering; a cancel
 * or a page over the time budget ends the worker, and the model is told what happened.
 */
import assert from 'node:assert/strict';
import { abortError, ToolExecutionError } from '../../src/core/errors';
import { convertHtmlOffThread } from '../../src/core/web/htmlConversion';
import { htmlToMarkdown } from '../../src/core/web/htmlToMarkdown';
import { whileTicking } from '../support/eventLoop';

const MB = 1024 * 1024;

/** A docs page of about `bytes`: navigation, a script, and article sections with code and a table. */
function docsPage(bytes: number): string {
  const section = (i: number) =>
    `<h2>Option ${i}</h2><p>${'The option changes how the call retries, and what it returns when it gives up. '.repeat(12)}</p>` +
    `<pre><code class="language-js">call(${i}, { retries: 3 });</code></pre><table><thead><tr><th>Name</th><th>Default</th></tr></thead><tbody><tr><td>retries</td><td>${i}</td></tr></tbody></table>`;
  const sections: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const next = section(i);
    sections.push(next);
    size += next.length;
  }
  return `<!doctype html><html><head><title>API</title><script>var tracking = 1;</script></head><body><nav><a href="/a">Home</a></nav><main><article><h1>The API</h1>${sections.join('')}</article></main><footer>Footer</footer></body></html>`;
}

describe('HTML converted off the calling thread', function () {
  this.timeout(180_000);
  const signal = () => new AbortController().signal;

  it('converts a 3 MB page to the markdown htmlToMarkdown gives, while this thread keeps answering its timers', async () => {
    const html = docsPage(3 * MB);
    assert.ok(html.length >= 3 * MB);
    const offThread = await whileTicking(() => convertHtmlOffThread(html, 'https://docs.example.com/api', signal()));
    const here = await whileTicking(async () => htmlToMarkdown(html, 'https://docs.example.com/api'));
    assert.deepEqual(offThread.value, here.value, 'the same markdown as on this thread');
    assert.ok(offThread.value.extracted && /\| retries \| 3 +\|/.test(offThread.value.markdown), offThread.value.markdown.slice(0, 300));
    // On this thread the conversion is one task as long as it takes: the loop stalls that long.
    assert.ok(here.worstGapMs > 500, `converting here stalls the loop (${here.worstGapMs.toFixed(0)} ms of ${here.tookMs.toFixed(0)} ms), so the measure can fail`);
    assert.ok(offThread.worstGapMs < Math.max(250, here.tookMs / 4), `the event loop stalled ${offThread.worstGapMs.toFixed(0)} ms while the worker converted (${offThread.tookMs.toFixed(0)} ms)`);
    assert.ok(offThread.ticks >= offThread.tookMs / 10 / 4, `${offThread.ticks} ticks in ${offThread.tookMs.toFixed(0)} ms`);
  });

  it('a cancel ends the conversion at once; a cancelled signal starts nothing', async () => {
    const html = docsPage(3 * MB);
    const controller = new AbortController();
    const started = performance.now();
    const converting = convertHtmlOffThread(html, 'https://docs.example.com/api', controller.signal);
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(converting, (error: Error) => error.name === abortError().name);
    assert.ok(performance.now() - started < 1_500, 'ended by the cancel, not after the whole conversion');
    await assert.rejects(convertHtmlOffThread('<p>x</p>', 'https://example.com/', controller.signal), (error: Error) => error.name === abortError().name);
  });

  it('a page that outlives the time budget is refused with what to do, and the worker is ended', async () => {
    const html = docsPage(3 * MB);
    const started = performance.now();
    await assert.rejects(convertHtmlOffThread(html, 'https://docs.example.com/api', signal(), 200), (error: Error) => {
      assert.ok(error instanceof ToolExecutionError, String(error));
      assert.match(error.message, /^The page was fetched but not shown: converting its [\d,]+ characters of HTML to markdown failed \(it ran longer than 0\.2 s\)\. Try a smaller page/);
      return true;
    });
    assert.ok(performance.now() - started < 1_500, 'the budget ended it');
  });
});
