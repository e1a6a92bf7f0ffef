/**
 * `exit_plan_mode` (src/core/tools/exitPlanMode.ts) and a plan's steps as the task list
 * (src/core/todos/planSteps.ts): the list under a steps heading, else the first numbered list,
 * never a list inside code; items in the task list's shape, capped as todo_write caps them.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { planSteps, proposedPlan } from '../../src/core/todos/planSteps';
import { parseTodoList, TODO_DEFAULTS } from '../../src/core/todos/todos';
import { createExitPlanModeTool, MAX_PLAN_CHARS } from '../../src/core/tools/exitPlanMode';
import { createToolRegistry } from '../../src/core/tools/registry';
import type { ToolContext, ToolDefinition } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { said } from '../support/said';

const PLAN = `# Add rate limiting to the public API

## Overview
The public endpoints have no limit; one client can starve the others.

## Risks
- Clients behind one NAT share an IP
- Redis becomes a dependency of every request

## Implementation Steps
1. Add a \`RateLimiter\` middleware in \`src/http/rateLimit.ts\`
   - token bucket per API key, falling back to the IP
2. Store the buckets in Redis with a TTL of **one minute**
3. Return 429 with a \`Retry-After\` header
4. Document the limits in docs/api.md

## Testing
1. Unit tests for the bucket arithmetic
2. An integration test that sends 101 requests

\`\`\`
1. not a step: this is sample output
\`\`\`
`;

describe('plan: steps and exit_plan_mode', () => {
  it('takes the steps from the list under the steps heading, as pending todo items', () => {
    const steps = planSteps(PLAN);
    assert.deepEqual(steps, [
      { id: '1', text: 'Add a RateLimiter middleware in src/http/rateLimit.ts', status: 'pending' },
      { id: '2', text: 'Store the buckets in Redis with a TTL of one minute', status: 'pending' },
      { id: '3', text: 'Return 429 with a Retry-After header', status: 'pending' },
      { id: '4', text: 'Document the limits in docs/api.md', status: 'pending' },
    ]);
    assert.ok(parseTodoList(steps).ok, 'what todo_write itself accepts');
    assert.deepEqual(proposedPlan(PLAN), { markdown: PLAN, steps });
  });

  it('falls back to the first numbered list, then the first list; checked boxes are done; code is never a list', () => {
    assert.deepEqual(planSteps('Notes:\n- a note\n\n1. First\n2. Second\n').map((step) => step.text), ['First', 'Second']);
    assert.deepEqual(planSteps('- [x] Read the code\n- [ ] Change it\n'), [
      { id: '1', text: 'Read the code', status: 'done' },
      { id: '2', text: 'Change it', status: 'pending' },
    ]);
    assert.deepEqual(planSteps('```\n1. inside a fence\n```\n\n    2. indented code\n'), []);
    assert.deepEqual(planSteps('Just prose, no list.'), []);
  });

  it('caps the steps as a task list is capped', () => {
    const many = Array.from({ length: TODO_DEFAULTS.maxItems + 20 }, (_, index) => `${index + 1}. Step ${index + 1}`).join('\n');
    assert.equal(planSteps(many).length, TODO_DEFAULTS.maxItems);
    const long = planSteps(`1. ${'word '.repeat(200)}`)[0]!;
    assert.equal(long.text.length, TODO_DEFAULTS.maxTextChars);
    assert.ok(long.text.endsWith('…'));
  });

  it('runs as a tool: the plan shown, the model told to wait; bad input is a clear error', async () => {
    const registry = createToolRegistry({ trusted: true, externalTools: [createExitPlanModeTool() as ToolDefinition<unknown>] });
    const ctx: ToolContext = { workspace: new NodeWorkspace(os.tmpdir()), signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: false }) };
    const result = await registry.executeToolCall('exit_plan_mode', { plan: PLAN }, ctx);
    assert.equal(result.isError, undefined);
    assert.match(result.content, /^The plan was shown to the user \(4 steps for the task list\)\. Stop here and wait/);
    // The plan reaches the session as an effect: its card, and the turn's end.
    const proposed = result.effects?.find((effect) => effect.kind === 'plan_proposed');
    assert.ok(proposed?.kind === 'plan_proposed');
    assert.equal(proposed.plan.markdown, PLAN);
    assert.equal(proposed.plan.steps.length, 4);
    assert.equal(said(registry.headline('exit_plan_mode', { plan: PLAN })), 'Add rate limiting to the public API · 4 steps');
    const missing = await registry.executeToolCall('exit_plan_mode', {}, ctx);
    assert.equal(missing.isError, true);
    assert.match(missing.content, /Missing required parameter "plan"/);
    const huge = await registry.executeToolCall('exit_plan_mode', { plan: `1. x\n${'y'.repeat(MAX_PLAN_CHARS)}` }, ctx);
    assert.match(huge.content, /at most 50000/);
    const none = await registry.executeToolCall('exit_plan_mode', { plan: 'I would refactor it.' }, ctx);
    assert.match(none.content, /no list of steps was found in it, so building it leaves the task list as it is/);
  });
});
