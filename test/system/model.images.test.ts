/**
 * Images in the conversation: facts read from the bytes, the providers' limits, the token cost the
 * context engine counts, and the strict fake API refusing what the real one refuses.
 */
import assert from 'node:assert/strict';
import type { ImageBlockParam } from '../../src/core/model/messages';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { pngBase64 } from '../support/images';

function image(data: string, mediaType: ImageBlockParam['source'] extends infer S ? (S extends { media_type: infer M } ? M : never) : never = 'image/png'): ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
}

describe('the fake Anthropic API is strict about images, as the real one is', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  before(async () => (fake = await startFakeAnthropic()));
  after(() => fake.close());

  async function send(content: unknown[]): Promise<{ status: number; message: string }> {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': fake.apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content }] }),
    });
    const body = (await response.json()) as { error?: { message?: string } };
    return { status: response.status, message: body.error?.message ?? '' };
  }

  it('accepts a real image of the declared type, and refuses a mismatch, bad base64, too large and too many', async () => {
    fake.enqueue(reply.text('An image.'));
    assert.equal((await send([image(pngBase64(20, 20)), { type: 'text', text: 'what is it?' }])).status, 200);
    const mismatch = await send([image(pngBase64(20, 20), 'image/jpeg')]);
    assert.deepEqual(mismatch, { status: 400, message: 'messages.0.content.0.image.source.base64.data: Image does not match the provided media type image/jpeg' });
    assert.equal((await send([image('%%%%')])).message, 'messages.0.content.0.image.source.base64.data: Could not process image');
    assert.equal((await send([image(pngBase64(8001, 8))])).message, 'messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels');
    const big = 'A'.repeat(5 * 1024 * 1024 + 4);
    assert.equal((await send([image(big)])).message, `messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: ${big.length} bytes > 5242880 bytes`);
    const many = Array.from({ length: 21 }, (_, n) => image(pngBase64(n === 20 ? 2001 : 8, 8)));
    assert.equal((await send(many)).message, 'messages.0.content.20.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels');
    assert.equal((await send(Array.from({ length: 101 }, () => image(pngBase64(8, 8))))).message, 'Too much media: 0 document pages + 101 images > 100');
  });
});
