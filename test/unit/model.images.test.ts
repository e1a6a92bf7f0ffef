/**
 * Images in the conversation: facts read from the bytes, the providers' limits, the token cost the
 * context engine counts, and the strict fake API refusing what the real one refuses.
 */
import assert from 'node:assert/strict';
import { TokenAccounting } from '../../src/core/context/accounting';
import { applyEdits, clearedText } from '../../src/core/context/liveView';
import { blockChars, messageChars, toolResultText } from '../../src/core/model/content';
import { fitImagesToRequest, imageLimitProblem, imageTokens, readImage, REQUEST_IMAGE_LIMITS } from '../../src/core/model/images';
import type { ImageBlockParam, MessageParam, ToolResultBlockParam } from '../../src/core/model/messages';
import { gifBase64, pngBase64 } from '../support/images';

function image(data: string, mediaType: ImageBlockParam['source'] extends infer S ? (S extends { media_type: infer M } ? M : never) : never = 'image/png'): ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
}

describe('images: facts, limits and cost', () => {
  it('reads type and size from the bytes, whatever the sender claimed, and says why it cannot', () => {
    const png = readImage(pngBase64(120, 80));
    assert.ok(!('problem' in png));
    assert.deepEqual({ type: png.mediaType, width: png.width, height: png.height }, { type: 'image/png', width: 120, height: 80 });
    const gif = readImage(gifBase64(7, 9));
    assert.ok(!('problem' in gif) && gif.mediaType === 'image/gif' && gif.width === 7);
    const notBase64 = readImage('not base64!');
    assert.ok('problem' in notBase64 && /not valid base64/.test(notBase64.problem));
    const text = readImage(Buffer.from('just some text, no image').toString('base64'));
    assert.ok('problem' in text && /not an image/.test(text.problem));
    const bmp = readImage(Buffer.concat([Buffer.from('BM'), Buffer.alloc(24)]).toString('base64'));
    assert.ok('problem' in bmp, 'a type the models do not take is refused');
  });

  it('an image over 8000 px a side or 5 MB of base64 may not be sent, and says why', () => {
    const huge = readImage(pngBase64(8001, 10));
    assert.ok(!('problem' in huge));
    assert.match(imageLimitProblem(huge, 100) ?? '', /8001x10 px; the models take at most 8000 px a side/);
    const fits = readImage(pngBase64(8000, 10));
    assert.ok(!('problem' in fits));
    assert.equal(imageLimitProblem(fits, 100), undefined);
    assert.match(imageLimitProblem(fits, 5 * 1024 * 1024 + 1) ?? '', /5\.0 MB as base64; the models take at most 5 MB/);
  });

  it("costs width*height/750 tokens, scaled to Anthropic's native size first", () => {
    assert.equal(imageTokens(750, 1), 1);
    assert.equal(imageTokens(1000, 750), 1000);
    // 4000x3000 is scaled to about 1.15 megapixels first, so it costs what the API says it does (~1,533), not 16,000.
    assert.ok(Math.abs(imageTokens(4000, 3000) - 1534) <= 2, String(imageTokens(4000, 3000)));
  });

  it('the estimates count an image by its tokens, not by the length of its base64, and never show the bytes', () => {
    const data = pngBase64(1000, 750); // a few KB of base64 for 1,000 tokens
    const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'shot' }, image(data)] };
    assert.equal(blockChars(result, 4), 4 + 1000 * 4);
    const message: MessageParam = { role: 'user', content: [result, image(data)] };
    assert.equal(messageChars(message, 4), 4 + 2 * 1000 * 4);
    assert.equal(new TokenAccounting(0, 4).estimate(undefined, [message]), Math.ceil((4 + 8000) / 4));
    assert.equal(toolResultText(result), 'shot\n[image: image/png, 1000x750]');
    assert.ok(!toolResultText(result).includes(data.slice(0, 20)));
  });

  it('a cleared result with images becomes the normal placeholder, and the estimate drops by what the image cost', () => {
    const message: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'shot' }, image(pngBase64(1000, 750))] }] };
    const cleared = applyEdits(message, new Map([['toolu_1', { toolUseId: 'toolu_1', action: 'clear' as const }]]));
    assert.deepEqual(cleared.content, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: clearedText('toolu_1') }]);
    assert.equal(messageChars(message) - messageChars(cleared), 4 + 1000 * 4 - clearedText('toolu_1').length);
  });

  it('fits a request: beyond the count the oldest images are described, and above 20 none over 2000 px is sent', () => {
    const limits = REQUEST_IMAGE_LIMITS.anthropic;
    const small = Array.from({ length: 101 }, (_, n) => image(pngBase64(n + 1, 1)));
    const fitted = fitImagesToRequest([{ role: 'user', content: small }], limits);
    const blocks = fitted[0]!.content as Array<{ type: string; text?: string }>;
    assert.equal(blocks.filter((block) => block.type === 'image').length, 100);
    assert.deepEqual(blocks[0], { type: 'text', text: '[image: image/png, 1x1] (not sent: the request holds more than 100 images)' });

    const large = image(pngBase64(2001, 10));
    const few: MessageParam[] = [{ role: 'user', content: [large, ...Array.from({ length: 19 }, () => image(pngBase64(4, 4)))] }];
    assert.equal(fitImagesToRequest(few, limits), few, '20 images: the 8000 px limit holds, nothing changes');
    const many: MessageParam[] = [
      { role: 'user', content: [large, ...Array.from({ length: 19 }, () => image(pngBase64(4, 4)))] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'shot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'one more' }, image(pngBase64(4, 4))] }] },
    ];
    const fittedMany = fitImagesToRequest(many, limits);
    assert.deepEqual((fittedMany[0]!.content as Array<{ type: string; text?: string }>)[0], { type: 'text', text: '[image: image/png, 2001x10] (not sent: over 2000 px a side, too large for a request of more than 20 images)' });
    assert.equal(((fittedMany[2]!.content as ToolResultBlockParam[])[0]!.content as unknown[]).length, 2, 'the small image in the tool result stays');
    assert.deepEqual(fitImagesToRequest(many, limits), fittedMany, 'deterministic');
  });
});
