import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type StartedSession } from '../../src/core/agent/factory';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { BACKENDS, say, type FakeBackend } from '../support/backends';

for (const backend of BACKENDS) describe(`modes in a session [${backend.name}]`, function () {
  this.timeout(60_000);
  let fake: FakeBackend;
  let base: string;
  let workspace: string;
  let store: FileSessionStore;
  const opened: StartedSession[] = [];
  beforeEach(async () => {
    fake = await backend.start();
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-modes-')));
    workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'one\n');
    store = new FileSessionStore(path.join(base, 'storage'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await fake.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('smoke', async () => {
    const events: AgentEvent[] = [];
    const started = await startAgentSession({ config: fake.config({ sandbox: { enabled: false, allowedDomains: [] }, modes: { start: 'plan', home: base } }), workspaceRoot: workspace, store, approver: { requestApproval: async () => ({ approved: true }) }, onEvent: (e) => events.push(e) });
    opened.push(started);
    fake.enqueue(say.toolUse('write_file', { path: 'b.txt', content: 'x' }), say.toolUse('exit_plan_mode', { plan: '# Plan\n\n## Steps\n1. Do A\n2. Do B\n' }));
    const stop = await started.session.send('Plan it');
    console.log(stop, events.filter((e) => e.type !== 'text_delta' && e.type !== 'usage' && e.type !== 'context').map((e) => JSON.stringify(e).slice(0, 200)));
    console.log(JSON.stringify(fake.requests()[0]!.messages).slice(0, 1500));
    fake.enqueue(say.text('Building.'));
    await started.session.decidePlan('build');
    console.log(JSON.stringify(fake.requests().at(-1)!.messages.slice(-3)).slice(0, 3000));
    console.log(started.session.modes?.current.name);
  });
});
