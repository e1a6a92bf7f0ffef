/**
 * Image files over the models' limits are resized on the host (issue 17): a PNG or JPEG attached by
 * its path is decoded, scaled to 1568 px on its long edge and encoded again; one that fits goes as
 * it is; a GIF or WebP over the limits, a corrupt file and a header that claims too many pixels are
 * refused naming the file, before anything is sent.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encode as encodeJpeg } from 'jpeg-js';
import { EXIT } from '../../src/cli/run';
import { readImage } from '../../src/core/model/images';
import { BACKENDS, say } from '../support/backends';
import { gifBase64, pngBytes } from '../support/images';
import { useCliFixture } from '../support/cliFixture';
import { pixels, png, pngClaiming } from '../support/images';

describe('image files over the limits in the CLI', () => {
  // Made once: a 4000x3000 PNG and JPEG, both over the 5 MB of base64 the models take (the PNG's noisy
  // part small enough to stay a PNG once resized).
  let bigPng: Buffer;
  let bigJpeg: Buffer;
  before(function () {
    this.timeout(120_000);
    bigPng = png(4000, 3000, pixels(4000, 3000, 4, 1200));
    bigJpeg = Buffer.from(encodeJpeg({ width: 4000, height: 3000, data: pixels(4000, 3000, 24) }, 90).data);
    assert.ok(bigPng.toString('base64').length > 5 * 1024 * 1024 && bigJpeg.toString('base64').length > 5 * 1024 * 1024, 'both are over the limit');
  });

  for (const backend of BACKENDS) describe(`[${backend.name}]`, function () {
    this.timeout(120_000);
    let workspace: string;
    const fixture = useCliFixture(backend);
    let fake: Awaited<ReturnType<typeof backend.start>>;

    beforeEach(async () => {
      ({ fake, workspace } = fixture());
    });

    const cli = (args: string[]) =>
      fixture().run(['--output-format', 'stream-json', ...args]);

    it('a 4000x3000 PNG and JPEG are sent resized to 1568x1176 and say so; a small image is sent byte for byte', async () => {
      const small = png(40, 30, pixels(40, 30, 4));
      fs.writeFileSync(path.join(workspace, 'big.png'), bigPng);
      fs.writeFileSync(path.join(workspace, 'photo.jpg'), bigJpeg);
      fs.writeFileSync(path.join(workspace, 'small.png'), small);
      fake.enqueue(say.text('Three pictures.'));
      const run = await cli(['--image', 'big.png', '--attach', 'photo.jpg', '--image', 'small.png', '-p', 'What do these show?']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const content = fake.requests()[0]!.messages[0]!.content;
      assert.ok(Array.isArray(content));
      assert.deepEqual(content.map((block) => block.type), ['text', 'image', 'text', 'image', 'text', 'image', 'text']);
      // Each image block comes after the text that names it (--attach's before --image's).
      const sent = new Map<string, { text: string; mediaType: string; data: string }>();
      content.forEach((block, index) => {
        const named = content[index - 1];
        if (block.type !== 'image' || block.source.type !== 'base64' || named?.type !== 'text') return;
        sent.set(/label="([^"]+)"/.exec(named.text)?.[1] ?? '', { text: named.text, mediaType: block.source.media_type, data: block.source.data });
      });
      assert.deepEqual([...sent.keys()].sort(), ['big.png', 'photo.jpg', 'small.png']);
      for (const [name, mediaType] of [['big.png', 'image/png'], ['photo.jpg', 'image/jpeg']] as const) {
        const image = sent.get(name)!;
        const read = readImage(image.data);
        assert.ok(!('problem' in read), `${name}: ${'problem' in read ? read.problem : ''}`);
        assert.deepEqual([read.mediaType, read.width, read.height], [mediaType, 1568, 1176], name);
        assert.equal(image.mediaType, mediaType);
        assert.ok(image.data.length <= 5 * 1024 * 1024);
        assert.ok(image.text.endsWith(`\n[image: ${mediaType}, 1568x1176 px, resized from 4000x3000]\n</attachment>`), image.text);
      }
      assert.equal(sent.get('small.png')!.data, small.toString('base64'), 'an image that fits is not touched');
      assert.match(sent.get('small.png')!.text, /\[image: image\/png, 40x30 px\]/);
    });

    it('a GIF over the limit, a corrupt PNG and a header claiming too many pixels stop the run, naming the file; nothing is sent', async () => {
      fs.writeFileSync(path.join(workspace, 'wide.gif'), Buffer.from(gifBase64(9000, 10), 'base64'));
      const broken = Buffer.from(pngBytes(9000, 100));
      broken.fill(0x5a, 41, broken.length - 12); // The pixel data (after the 8-byte signature, the header chunk and the data chunk's own 8 bytes).
      fs.writeFileSync(path.join(workspace, 'broken.png'), broken);
      fs.writeFileSync(path.join(workspace, 'bomb.png'), pngClaiming(60_000, 60_000));
      for (const [file, expected] of [
        ['wide.gif', /cannot attach wide\.gif: it is 9000x10 px; the models take at most 8000 px a side, and Evergreen resizes only PNG and JPEG images: convert it to PNG or JPEG, or make it smaller, first; nothing was sent/],
        ['broken.png', /cannot attach broken\.png: .*its PNG data cannot be decoded to resize it \(.+\): resize it, or save it again, first/],
        ['bomb.png', /cannot attach bomb\.png: it is 60000x60000 px \(3600 megapixels\); Evergreen resizes images of at most 50 megapixels/],
      ] as const) {
        const refused = await cli(['--image', file, '-p', 'Look']);
        assert.equal(refused.code, EXIT.usage, `${file}: ${refused.stderr}`);
        assert.match(refused.stderr, expected);
      }
      assert.equal(fake.requests().length, 0, 'no refused image reached the model');
    });
  });
});
