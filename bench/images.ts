/**
 * An attached image too large for the models, made fit (issue 27, item 8): how long the host's
 * event loop stalls while a 12-megapixel photo is decoded, scaled and encoded again. Run alone with
 * `node --require tsx/cjs bench/images.ts [--runs=3] [--no-write]`, or as part of `npm run bench`.
 * Writes its section of bench/RESULTS.md (between markers).
 *
 * The images are made here, seeded: a 4000x3000 JPEG photo (smooth light and fine noise, as a
 * camera writes it) and a 3000x2000 photo saved as PNG (over the 5 MB limit: lossless noise). Each is
 * attached as the panel sends a pasted file, through `resolveAttachments` (src/core/agent/attachments.ts),
 * while a timer pings the event loop every 10 ms and records how late each ping is answered.
 * Target: the worst delay while the photo is resized is under 50 ms (the host answers a ping).
 * Two controls come first, as long as a resize: pings while nothing runs, and while a worker thread
 * only spins. On a shared 2-core machine any busy thread delays the host's a little, and a decoder's
 * garbage collection in the worker (V8 runs it on helper threads too) more; the rows say how much.
 */
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { Worker } from 'node:worker_threads';
import { resolveAttachments } from '../src/core/agent/attachments';
import { createToolRegistry } from '../src/core/tools/registry';
import type { ToolContext } from '../src/core/tools/types';
import { NodeWorkspace } from '../src/core/workspace/workspace';
import { collectGarbage } from './gc';
import { writeResultsSection, runAsScript } from './results';
import { median, prng } from './random';

const START = '<!-- images-bench:start -->';
const END = '<!-- images-bench:end -->';
const TARGET_MS = 50;
const PING_MS = 10;

function photoJpeg(width: number, height: number): Buffer {
  const random = prng(12);
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const light = 0.5 + 0.5 * Math.sin(x / 370) * Math.cos(y / 290);
      const noise = (random() - 0.5) * 40;
      data[at] = Math.max(0, Math.min(255, 60 + 150 * light + noise));
      data[at + 1] = Math.max(0, Math.min(255, 90 + 110 * (1 - light) + noise));
      data[at + 2] = Math.max(0, Math.min(255, 40 + 80 * Math.sin(y / 500) ** 2 + noise));
      data[at + 3] = 255;
    }
  }
  return encodeJpeg({ width, height, data }, 90).data;
}

/** The same kind of photo as a PNG (lossless, so the noise makes it large: over the 5 MB limit). */
function photoPng(width: number, height: number): Buffer {
  const random = prng(4);
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const light = 0.5 + 0.5 * Math.sin(x / 310) * Math.cos(y / 230);
      const noise = (random() - 0.5) * 30;
      png.data[at] = Math.max(0, Math.min(255, 50 + 160 * light + noise));
      png.data[at + 1] = Math.max(0, Math.min(255, 80 + 120 * (1 - light) + noise));
      png.data[at + 2] = Math.max(0, Math.min(255, 60 + 60 * light + noise));
      png.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(png, { colorType: 2 });
}

interface Sample {
  totalMs: number;
  worstDelayMs: number;
  /** Pings answered later than the target. */
  latePings: number;
  pings: number;
  result: string;
}

/** Pings the event loop every PING_MS while `work` runs; the worst lateness and how many pings were late. */
async function pinged<T>(work: () => Promise<T>): Promise<{ value: T; totalMs: number; worstDelayMs: number; latePings: number; pings: number }> {
  // What earlier benchmarks left behind is collected first: its collection is not the image's stall.
  await collectGarbage();
  let pings = 0;
  let latePings = 0;
  let worstDelayMs = 0;
  let expected = performance.now() + PING_MS;
  const ping = setInterval(() => {
    const now = performance.now();
    const delay = Math.max(0, now - expected);
    pings++;
    worstDelayMs = Math.max(worstDelayMs, delay);
    if (delay > TARGET_MS) latePings++;
    expected = now + PING_MS;
  }, PING_MS);
  const started = performance.now();
  try {
    const value = await work();
    const totalMs = performance.now() - started;
    // A blocked loop is seen by the first ping after it: give the pings a few turns.
    await new Promise((resolve) => setTimeout(resolve, PING_MS * 3));
    return { value, totalMs, worstDelayMs, latePings, pings };
  } finally {
    clearInterval(ping);
  }
}

/** The controls: pings while nothing runs, and while a worker thread only spins (what any busy thread costs the host on this machine). */
async function control(ms: number, spin: boolean): Promise<Sample> {
  const { value, ...sample } = await pinged(async () => {
    if (!spin) return new Promise<string>((resolve) => setTimeout(() => resolve(''), ms));
    const worker = new Worker(`const end = Date.now() + ${ms}; while (Date.now() < end);`, { eval: true });
    await once(worker, 'exit');
    return '';
  });
  return { ...sample, result: value };
}

async function attach(name: string, bytes: Buffer, ctx: ToolContext): Promise<Sample> {
  // As the panel sends it: base64 already (encoding it is not the host's work).
  const data = bytes.toString('base64');
  const registry = createToolRegistry({ trusted: true });
  const { value, ...sample } = await pinged(async () => (await resolveAttachments([{ kind: 'image', name, data }], registry, ctx))[0]?.text ?? '');
  return { ...sample, result: value };
}

export async function runImagesBench(argv: string[] = []): Promise<string> {
  let runs = 3;
  let write = true;
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key === 'no-write') write = false;
    else if (key === 'runs' && Number(value) > 0) runs = Number(value);
    else throw new Error(`unknown or invalid option ${arg} (see the header of bench/images.ts)`);
  }
  const load = [os.loadavg()[0]!, 0];
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-images-'));
  const ctx: ToolContext = { workspace: new NodeWorkspace(workspace), signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: true }) };
  const rows: string[] = [];
  let photoMet = false;
  try {
    const images = [
      { label: '12 MP photo (4000x3000 JPEG)', name: 'photo.jpg', bytes: photoJpeg(4000, 3000), target: true },
      { label: '6 MP photo saved as PNG (3000x2000)', name: 'photo.png', bytes: photoPng(3000, 2000), target: false },
    ];
    // The machine's own latency (its load delays any thread), idle and beside a busy thread, as long as a photo's resize.
    for (const [label, spin] of [['nothing (3 s: the machine\'s own ping latency)', false], ['a worker thread that only spins for 3 s (what any busy thread costs the host here)', true]] as const) {
      const sample = await control(3_000, spin);
      rows.push(`| ${label} | 1 | – | ${sample.worstDelayMs.toFixed(1)} ms | ${sample.worstDelayMs.toFixed(1)} ms | ${sample.latePings} of ${sample.pings} | | |`);
    }
    for (const image of images) {
      const samples: Sample[] = [];
      for (let run = 0; run < runs; run++) samples.push(await attach(image.name, image.bytes, ctx));
      const worst = Math.max(...samples.map((s) => s.worstDelayMs));
      const met = worst < TARGET_MS;
      if (image.target) photoMet = met;
      rows.push(
        `| ${image.label}, ${(image.bytes.length / 1024 / 1024).toFixed(1)} MB | ${runs} | ${median(samples.map((s) => s.totalMs)).toFixed(0)} ms | ${median(samples.map((s) => s.worstDelayMs)).toFixed(1)} ms | ${worst.toFixed(1)} ms | ${samples.reduce((n, s) => n + s.latePings, 0)} of ${samples.reduce((n, s) => n + s.pings, 0)} | ${samples[0]!.result} | ${image.target ? `< ${TARGET_MS} ms: **${met ? 'met' : 'missed'}**` : ''} |`,
      );
    }
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  load[1] = os.loadavg()[0]!;
  const cpus = os.cpus();
  const section = [
    START,
    '## Images made fit on the host (bench/images.ts)',
    '',
    `Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}; 1-minute load average ${load[0]!.toFixed(1)} before, ${load[1]!.toFixed(1)} after (shared machine).`,
    '',
    'Command: `node --require tsx/cjs bench/images.ts` (also run by `npm run bench`).',
    '',
    `An image pasted into the chat, too large for the models, attached through \`resolveAttachments\` (decoded, scaled to 1568 px on its long edge, encoded again) while a ${PING_MS} ms timer pings the event loop. *worst delay*: the latest a ping was answered during the attach (how long the event loop was blocked at most); *late pings*: pings answered more than ${TARGET_MS} ms late.`,
    '',
    '| image | runs | attach, median | worst delay, median | worst delay, max | late pings | result | target |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `- Target: the host answers within ${TARGET_MS} ms while a 12-megapixel photo is resized: **${photoMet ? 'met' : 'missed'}**.`,
    '',
    END,
  ].join('\n');
  if (write) writeResultsSection(section, START, END);
  return section;
}

if (require.main === module) {
  runAsScript(() => runImagesBench(process.argv.slice(2)));
}
