/**
 * What a mode switch costs per request (issue 28), on both back ends against the strict fakes: the
 * same six-turn chat twice, once in agent mode throughout and once switching agent -> plan -> agent
 * -> a custom mode between turns. Reports, per switch, the tokens the switch's block adds to the
 * request after it and the cached share of that request, next to the same request without a switch:
 * a switch must cost one small block and leave the cached prefix (system prompt, tools, history) as
 * it was. Also what the skills' and memory's listings add to every request (they sit in the cached
 * system prompt): the same two-turn chat with no skills or memory, with ten skills, and with ten
 * skills and ten memory notes. Run alone: `node --require tsx/cjs bench/modes.ts`; `npm run bench`
 * runs it too. Writes its section of bench/RESULTS.md.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAgentSession } from '../src/core/agent/factory';
import { FileSessionStore } from '../src/core/storage/sessionStore';
import { BACKENDS, say, type BackendFactory, type SentRequest } from '../test/support/backends';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- modes: start -->';
const END = '<!-- modes: end -->';
/** The mode switched to before each turn (undefined: none); the custom one is a workspace file. */
const SWITCHES: readonly (string | undefined)[] = [undefined, 'plan', undefined, 'agent', 'reviewer', undefined];
const REVIEWER = '---\ndescription: Reviews changes\ntools: [codebase, search]\n---\nReview the change like a careful colleague: correctness first, then tests, then names.\n';

async function chat(factory: BackendFactory, root: string, switching: boolean): Promise<SentRequest[]> {
  const fake = await factory.start();
  const workspace = path.join(root, `ws-${factory.name}-${switching}`);
  fs.mkdirSync(path.join(workspace, '.github', 'chatmodes'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.github', 'chatmodes', 'reviewer.chatmode.md'), REVIEWER);
  fs.writeFileSync(path.join(workspace, 'notes.md'), `${'A line of the project notes.\n'.repeat(200)}`);
  try {
    const { session, handle } = await startAgentSession({
      config: fake.config({ sandbox: { enabled: false, allowedDomains: [] }, modes: { home: root } }),
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, `store-${factory.name}-${switching}`)),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: () => undefined,
    });
    for (const [turn, mode] of SWITCHES.entries()) {
      if (switching && mode !== undefined) session.modes?.switchTo(mode, 'switch');
      fake.enqueue(say.toolUse('read_file', { path: 'notes.md' }), say.text(`Answer ${turn}.`));
      await session.send(`Question ${turn} about the notes.`);
    }
    handle.close();
    return fake.requests();
  } finally {
    await fake.close();
  }
}

type Listing = 'none' | 'skills' | 'skills and memory';
const LISTINGS: readonly Listing[] = ['none', 'skills', 'skills and memory'];

/** Ten skills as a workspace keeps them, each with a body the listing leaves out. */
function writeSkills(workspace: string): void {
  for (let index = 1; index <= 10; index++) {
    const folder = path.join(workspace, '.evergreen', 'skills', `skill-${index}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'SKILL.md'), `---\nname: skill-${index}\ndescription: Does task number ${index} of the project the way the team agreed (checks, format, where the output goes).\n---\n${'A step of the procedure.\n'.repeat(100)}`);
  }
}

/** Ten memory notes of a few hundred bytes, as the agent would keep them. */
function writeMemory(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  for (let index = 1; index <= 10; index++) fs.writeFileSync(path.join(folder, `note-${index}.md`), `# Note ${index}: how the build handles case ${index}\n${'A remembered detail.\n'.repeat(20)}`);
}

/** A two-turn chat with the listing; the requests as the fake saw them. */
async function listingChat(factory: BackendFactory, root: string, listing: Listing): Promise<SentRequest[]> {
  const fake = await factory.start();
  const workspace = path.join(root, `ws-listing-${factory.name}-${listing.replace(/ /g, '-')}`);
  fs.mkdirSync(workspace, { recursive: true });
  if (listing !== 'none') writeSkills(workspace);
  const memoryFolder = path.join(root, `memory-${factory.name}-${listing.replace(/ /g, '-')}`);
  if (listing === 'skills and memory') writeMemory(memoryFolder);
  try {
    const { session, handle } = await startAgentSession({
      config: fake.config({ sandbox: { enabled: false, allowedDomains: [] }, skills: { home: root }, ...(listing === 'skills and memory' ? { memory: { folder: memoryFolder } } : {}) }),
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, `store-listing-${factory.name}-${listing.replace(/ /g, '-')}`)),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: () => undefined,
    });
    for (const turn of [1, 2]) {
      fake.enqueue(say.text(`Answer ${turn}.`));
      await session.send(`Question ${turn}.`);
    }
    handle.close();
    return fake.requests();
  } finally {
    await fake.close();
  }
}

async function listingRows(root: string): Promise<string[]> {
  const rows: string[] = [];
  for (const factory of BACKENDS) {
    const none = await listingChat(factory, root, 'none');
    for (const listing of LISTINGS) {
      const requests = listing === 'none' ? none : await listingChat(factory, root, listing);
      const [first, second] = requests;
      if (!first || !second || !none[0]) throw new Error(`bench/modes.ts: the ${listing} chat sent ${requests.length} requests`);
      const share = `${Math.round((100 * second.cachedTokens) / Math.max(1, second.promptTokens))} %`;
      rows.push(`| ${factory.name} | ${listing} | ${first.promptTokens.toLocaleString('en-US')} | ${(first.promptTokens - none[0].promptTokens).toLocaleString('en-US')} | ${share} |`);
    }
  }
  return rows;
}

export async function runModesBench(): Promise<string> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-modes-')));
  const rows: string[] = [];
  let listings: string[] = [];
  try {
    listings = await listingRows(root);
    for (const factory of BACKENDS) {
      const plain = await chat(factory, root, false);
      const switched = await chat(factory, root, true);
      for (const [turn, mode] of SWITCHES.entries()) {
        if (mode === undefined) continue;
        // Two requests a turn (the tool call, then the answer): the turn's first request carries the switch.
        const index = turn * 2;
        const [before, after] = [plain[index], switched[index]];
        if (!before || !after) throw new Error(`bench/modes.ts: request ${index} is missing (${plain.length} / ${switched.length} requests)`);
        // What earlier switches left in the history is in both the request and the one before it: the difference of differences is this switch alone.
        const earlier = (switched[index - 1]?.promptTokens ?? 0) - (plain[index - 1]?.promptTokens ?? 0);
        const share = (request: SentRequest) => `${Math.round((100 * request.cachedTokens) / Math.max(1, request.promptTokens))} %`;
        rows.push(`| ${factory.name} | ${turn + 1}: to ${mode} | ${before.promptTokens.toLocaleString('en-US')} | ${after.promptTokens.toLocaleString('en-US')} | ${(after.promptTokens - before.promptTokens - earlier).toLocaleString('en-US')} | ${share(before)} | ${share(after)} |`);
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const section = [
    START,
    '## Mode switches (bench/modes.ts)',
    '',
    `A six-turn chat (a read_file of a 5.6 KB file, then an answer, each turn) in agent mode throughout, and the same chat switching modes before turns 2, 4 and 5 (plan, agent, a workspace's custom mode). The request that opens each switched turn, against the same request without the switch: prompt tokens as the fake counts them, the tokens this switch adds (earlier switches' blocks taken out), and the share of the prompt read from the cache.`,
    '',
    '| back end | turn: switch | prompt, no switch | prompt, switched | this switch adds | cached, no switch | cached, switched |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    "What the listings add to every request: a two-turn chat with neither, with ten skills (each a SKILL.md of 2.5 KB, only its name and description listed), and with ten skills and ten memory notes (listed as names, sizes and first lines). *Adds*: the first request's prompt tokens over the chat with neither (the listing and the definition of the tool that serves it, `skill` or `memory`); *cached*: the second request's share read from the cache (the listings are in the cached system prompt).",
    '',
    '| back end | listed | first request, prompt | adds | second request, cached |',
    '| --- | --- | --- | --- | --- |',
    ...listings,
    END,
  ].join('\n');
  writeResultsSection(section, START, END);
  return section;
}

if (require.main === module) {
  runAsScript(() => runModesBench());
}
