/**
 * Pending approvals keyed by tool-use id (issue 8 item 5): two prompts open at once (a parent and
 * a subagent, or parallel calls) are each answered by their own id, in any order; cancelling one
 * leaves the other waiting; a decision for a call that is not waiting is ignored and logged.
 * The broker imports `vscode` for types only, so it runs in plain node.
 */
import assert from 'node:assert/strict';
import { ApprovalBroker } from '../../src/extension/approvalBroker';
import { lineLogger } from '../../src/core/logger';
import type { ApprovalRequest } from '../../src/core/approvals/approval';

function shell(command: string): ApprovalRequest {
  return { kind: 'shell', command } as ApprovalRequest;
}

function broker(): { broker: ApprovalBroker; logs: string[]; shown: string[]; closed: string[] } {
  const logs: string[] = [];
  const shown: string[] = [];
  const closed: string[] = [];
  const instance = new ApprovalBroker({
    logger: lineLogger((line) => logs.push(line)),
    show: async (request) => {
      const label = request.kind === 'shell' ? request.command : request.kind;
      shown.push(label);
      return () => closed.push(label);
    },
  });
  return { broker: instance, logs, shown, closed };
}

describe('approval broker: several prompts at once', () => {
  it('answers two waiting prompts by their ids, the second first', async () => {
    const { broker: b, shown } = broker();
    const a = b.approver.requestApproval(shell('make a'), new AbortController().signal, { toolUseId: 'toolu_A' });
    const c = b.approver.requestApproval(shell('make b'), new AbortController().signal, { toolUseId: 'toolu_B' });
    assert.deepEqual(b.waiting(), ['toolu_A', 'toolu_B']);
    assert.equal(b.decide('toolu_B', false), true);
    assert.deepEqual(await c, { approved: false });
    assert.deepEqual(b.waiting(), ['toolu_A'], 'A still waits after B was answered');
    assert.equal(b.decide('toolu_A', true), true);
    assert.deepEqual(await a, { approved: true });
    assert.deepEqual(b.waiting(), []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(shown, ['make a', 'make b']);
  });

  it('shows the prompts still waiting again when asked (their chat came into view), and takes every showing down when answered', async () => {
    const { broker: b, shown, closed } = broker();
    const a = b.approver.requestApproval(shell('make a'), new AbortController().signal, { toolUseId: 'toolu_A' });
    const c = b.approver.requestApproval(shell('make b'), new AbortController().signal, { toolUseId: 'toolu_B' });
    assert.equal(b.decide('toolu_B', true), true);
    await c;
    b.showAgain();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(shown, ['make a', 'make b', 'make a'], 'only the prompt still waiting is shown again');
    assert.equal(b.decide('toolu_A', false), true);
    await a;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(closed.filter((label) => label === 'make a'), ['make a', 'make a'], 'a showing of the answered prompt stayed up');
  });

  it('cancelling one prompt declines only that one and takes its UI down', async () => {
    const { broker: b, closed } = broker();
    const abortA = new AbortController();
    const a = b.approver.requestApproval(shell('make a'), abortA.signal, { toolUseId: 'toolu_A' });
    const c = b.approver.requestApproval(shell('make b'), new AbortController().signal, { toolUseId: 'toolu_B' });
    abortA.abort();
    const declined = await a;
    assert.equal(declined.approved, false);
    assert.deepEqual(b.waiting(), ['toolu_B']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(closed, ['make a']);
    assert.equal(b.decide('toolu_A', true), false, 'a cancelled prompt cannot be approved afterwards');
    assert.equal(b.decide('toolu_B', true), true);
    assert.deepEqual(await c, { approved: true });
  });

  it('a second prompt under an id already waiting is declined at once, so one click can never answer the other', async () => {
    // Two subagents' calls may carry the same id (a server that numbers its calls): the panel answers by id alone.
    const { broker: b, logs, shown } = broker();
    const first = b.approver.requestApproval(shell('make safe'), new AbortController().signal, { toolUseId: 'call_0' });
    const second = await b.approver.requestApproval(shell('rm -rf build'), new AbortController().signal, { toolUseId: 'call_0' });
    assert.equal(second.approved, false);
    assert.match(second.approved ? '' : (second.reason ?? ''), /another approval .* same tool call id/);
    assert.ok(logs.some((line) => line.includes('call_0')), logs.join('\n'));
    assert.deepEqual(b.waiting(), ['call_0'], 'the first prompt still waits');
    assert.equal(b.decide('call_0', true), true);
    assert.deepEqual(await first, { approved: true }, 'the click answered the prompt the user saw first');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(shown, ['make safe'], 'the declined one was never shown');
  });

  it('ignores and logs a decision for a call that is not waiting; disposing declines the rest', async () => {
    const { broker: b, logs } = broker();
    const a = b.approver.requestApproval(shell('make a'), new AbortController().signal, { toolUseId: 'toolu_A' });
    assert.equal(b.decide('toolu_unknown', true), false);
    assert.ok(logs.some((line) => line.includes('toolu_unknown') && /not waiting/.test(line)), logs.join('\n'));
    assert.deepEqual(b.waiting(), ['toolu_A']);
    b.dispose();
    const decision = await a;
    assert.equal(decision.approved, false);
    assert.match(decision.approved ? '' : (decision.reason ?? ''), /closing/);
  });
});
