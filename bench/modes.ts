/**
 * What a mode switch costs per request (issue 28), on both back ends against the strict fakes: the
 * same six-turn chat twice, once in agent mode throughout and once switching agent -> plan -> agent
 * -> a custom mode between turns. Reports, per switch, the tokens the switch's block adds to the
 * request after it and the cached share of that request, next to the same request without a switch:
 * a switch must cost one small block and leave the cached prefix (system prompt, tools, history) as
 * it was. Run alone: `node --require tsx/cjs bench/modes.ts`; `npm run bench` runs it too. Writes its
 * section of bench/RESULTS.md.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAgentSession } from '../src/core/agent/factory';
import { FileSessionStore } from '../src/core/storage/sessionStore';
import { BACKENDS, say, type BackendFactory, type SentRequest } from '../test/support/backends';
import { writeResultsSection } from './results';

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

export async function runModesBench(): Promise<string> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-modes-')));
  const rows: string[] = [];
  try {
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
    END,
  ].join('\n');
  writeResultsSection(section, START, END);
  return section;
}

if (require.main === module) {
  void runModesBench().then((section) => console.log(section));
}
