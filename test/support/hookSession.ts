// A session with hooks against a fake back end (the system tier's hook suites): hooks defined the
// way a settings file defines them, the session's events, and what each request carried.
import { said } from './said';
import type { UserText } from '../../src/core/texts/userText';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent, HookRunView } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../src/core/approvals/approval';
import { parseHookSettingsValue, type ConfiguredHook } from '../../src/core/hooks/config';
import { blocksOf, textsOf, toolResultsOf, toolResultText } from '../../src/core/model/content';
import type { MessageParam } from '../../src/core/model/messages';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import type { BackendFactory, FakeBackend, SentRequest } from './backends';
import { useTempDirs, writeTree, type TempDirs } from './tempDirs';

/** The user's hooks from a settings value (`{ "PreToolUse": [ … ] }`), as ~/.claude/settings.json would define them. */
export function userHooks(map: Record<string, unknown>): ConfiguredHook[] {
  const settings = parseHookSettingsValue({ hooks: map }, { scope: 'user', source: '/home/user/.claude/settings.json', label: '~/.claude/settings.json' });
  assert.deepEqual(settings.problems, []);
  return settings.hooks;
}

/** A command hook group for a settings value. */
export function group(command: string, options: { matcher?: string; timeout?: number } = {}): Record<string, unknown> {
  return { ...(options.matcher === undefined ? {} : { matcher: options.matcher }), hooks: [{ type: 'command', command, ...(options.timeout === undefined ? {} : { timeout: options.timeout }) }] };
}

export interface HookHarness {
  started: StartedSession;
  events: AgentEvent[];
  workspace: string;
  storage: string;
  /** The approvals asked so far, in order. */
  asked: ApprovalRequest[];
  runs(event?: string): HookRunView[];
  notices(): string[];
}

export interface HarnessOptions {
  hooks?: readonly ConfiguredHook[];
  files?: Record<string, string>;
  /** Answers each approval (default: yes). */
  answer?: (request: ApprovalRequest) => ApprovalDecision;
  config?: Partial<AgentConfig>;
  /** Resume this session, in this workspace and storage. */
  resume?: { id: string; workspace: string; storage: string };
  /** A workspace made beforehand (its hooks loaded from its files). */
  workspace?: string;
  notices?: { level: 'warning' | 'info'; message: UserText }[];
}

/** Starts a session on `fake` whose hooks are `options.hooks`; close it with `started.close()` (the caller's afterEach). */
export async function openHookSession(fake: FakeBackend, temp: TempDirs, options: HarnessOptions = {}): Promise<HookHarness> {
  const workspace = options.resume?.workspace ?? options.workspace ?? temp.make('evergreen-hooks-ws-');
  const storage = options.resume?.storage ?? temp.make('evergreen-hooks-store-');
  writeTree(workspace, options.files ?? {});
  const events: AgentEvent[] = [];
  const asked: ApprovalRequest[] = [];
  const approver: Approver = {
    requestApproval: async (request) => {
      asked.push(request);
      return options.answer ? options.answer(request) : { approved: true };
    },
  };
  const started = await startAgentSession({
    config: fake.config({ hooks: { hooks: options.hooks ?? [], notices: options.notices ?? [] }, ...options.config }),
    workspaceRoot: workspace,
    store: new FileSessionStore(storage),
    approver,
    onEvent: (event) => events.push(event),
    resumeId: options.resume?.id,
  });
  return {
    started,
    events,
    workspace,
    storage,
    asked,
    runs: (event) => events.flatMap((item) => (item.type === 'hook_run' && (event === undefined || item.run.event === event) ? [item.run] : [])),
    notices: () => events.flatMap((item) => (item.type === 'hook_notice' ? [said(item.message)] : [])),
  };
}

/** The hook notes (text blocks a hook added) of a message, as `event: text` without the note's header and footer. */
export function hookNotes(message: MessageParam | undefined): string[] {
  if (!message) return [];
  return blocksOf(message).flatMap((block) => {
    if (block.type !== 'text') return [];
    const match = /^<hook-output event="(\w+)" command=.*>\n([\s\S]*)\n<\/hook-output>$/.exec(block.text);
    return match ? [`${match[1]}: ${match[2]}`] : [];
  });
}

/** The texts of a request's last message that are not hook notes (the user's words). */
export function ownTexts(message: MessageParam | undefined): string[] {
  return message ? textsOf(message).filter((text) => !text.startsWith('<hook-output ')) : [];
}

/** The tool results a request's last message carries, as text. */
export function resultsIn(request: SentRequest | undefined): string[] {
  const last = request?.messages.at(-1);
  return last ? toolResultsOf(last).map(toolResultText) : [];
}

/** A file the test's hooks write in the workspace to say they ran. */
export function markerPath(workspace: string, name: string): string {
  return path.join(workspace, name);
}

export function readIfExists(file: string): string | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/** A hook that prints its stdin's field `field` (node reads the JSON; the hook itself is a shell line). */
export const printField = (field: string): string => `${JSON.stringify(process.execPath)} -e 'const i=JSON.parse(require("fs").readFileSync(0,"utf8"));process.stdout.write(String(i.${field}))'`;

/** A suite's hook sessions on one back end (call in a describe): a fresh fake per test, and after it every session `open` started is closed, then the fake. */
export function useHookSessions(backend: BackendFactory): { readonly temp: TempDirs; readonly fake: FakeBackend; open(options?: HarnessOptions): Promise<HookHarness> } {
  const temp = useTempDirs();
  let fake: FakeBackend | undefined;
  const opened: StartedSession[] = [];
  beforeEach(async () => (fake = await backend.start()));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((started) => started.close()));
    await fake?.close();
  });
  const current = (): FakeBackend => {
    assert.ok(fake, 'the fake back end exists only inside a test');
    return fake;
  };
  return {
    temp,
    get fake() {
      return current();
    },
    async open(options = {}) {
      const harness = await openHookSession(current(), temp, options);
      opened.push(harness.started);
      return harness;
    },
  };
}
