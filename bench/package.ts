/**
 * The .vsix's size (issue 27, item 8): `npm run package` as the README says, then each file's
 * share of the package (compressed, as the zip holds it) and the room left under the target. Run
 * alone with `node --require tsx/cjs bench/package.ts [--no-write]`, or as part of `npm run bench`.
 * Writes its section of bench/RESULTS.md (between markers).
 *
 * Packaging rebuilds dist/ minified (vscode:prepublish); the development build is put back
 * afterwards, as the tests and the other benchmarks expect it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- package-bench:start -->';
const END = '<!-- package-bench:end -->';
const REPO_ROOT = path.resolve(__dirname, '..');
const VSIX = path.join(REPO_ROOT, 'evergreen-agent.vsix');
/** The target (1.5 MB, in the MiB test/package/vsix.e2e.ts counts in). */
const TARGET_BYTES = 1.5 * 1024 * 1024;

interface ZipEntry {
  name: string;
  compressed: number;
  size: number;
}

/** The entries of a zip, from its central directory (a .vsix is a zip). */
function zipEntries(bytes: Buffer): ZipEntry[] {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = bytes.readUInt16LE(end + 10);
  const entries: ZipEntry[] = [];
  for (let at = bytes.readUInt32LE(end + 16), i = 0; i < count; i++) {
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({ name: bytes.toString('utf8', at + 46, at + 46 + nameLength), compressed: bytes.readUInt32LE(at + 20), size: bytes.readUInt32LE(at + 24) });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export async function runPackageBench(argv: string[] = []): Promise<string> {
  const write = !argv.includes('--no-write');
  const started = Date.now();
  try {
    execFileSync('npm', ['run', 'package'], { cwd: REPO_ROOT, stdio: 'pipe', env: { ...process.env, npm_config_offline: 'true' } });
  } finally {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO_ROOT, stdio: 'pipe' });
  }
  const bytes = fs.readFileSync(VSIX);
  const entries = zipEntries(bytes).sort((a, b) => b.compressed - a.compressed);
  const met = bytes.length <= TARGET_BYTES;
  const section = [
    START,
    '## The .vsix (bench/package.ts)',
    '',
    `Date: ${new Date().toISOString().slice(0, 10)}. Node ${process.version}, ${os.platform()}; packaging took ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    '',
    'Command: `node --require tsx/cjs bench/package.ts` (also run by `npm run bench`): `npm run package`, then the zip\'s own listing.',
    '',
    '| file | in the package (compressed) | size |',
    '|---|---|---|',
    ...entries.map((entry) => `| ${entry.name} | ${kb(entry.compressed)} | ${kb(entry.size)} |`),
    `| **the .vsix** | **${mib(bytes.length)}** (${bytes.length.toLocaleString('en-US')} bytes) | |`,
    '',
    `- Target: at most ${mib(TARGET_BYTES)}: **${met ? 'met' : 'missed'}**; room left: ${kb(TARGET_BYTES - bytes.length)} compressed.`,
    '',
    END,
  ].join('\n');
  if (write) writeResultsSection(section, START, END);
  return section;
}

if (require.main === module) {
  runAsScript(() => runPackageBench(process.argv.slice(2)));
}
