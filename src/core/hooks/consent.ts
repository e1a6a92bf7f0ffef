/**
 * Which hooks may run. The user's own always do. A workspace's hook is a command a cloned repository
 * wants to run at every step, so it runs only with the user's consent for that exact definition (its
 * `consentKey`, remembered per workspace by the front end), never in an untrusted workspace, and
 * always in the OS sandbox (dispatch.ts). The front ends ask (VS Code: a modal showing each command;
 * the CLI: `--trust-workspace-hooks`); this module only sorts.
 */
import { userText, type UserText } from '../texts/userText';
import { describeHooks, type ConfiguredHook, type HookConfigProblem } from './config';

export interface ConsentState {
  /** The keys the user consented to in this workspace. */
  consentedKeys: ReadonlySet<string>;
  /** Whether the user trusts the workspace (VS Code's workspace trust); when false no workspace hook runs or is asked about. */
  workspaceTrusted: boolean;
  /** The CLI's `--trust-workspace-hooks`: every workspace hook of a trusted workspace runs without asking. */
  trustWorkspaceHooks?: boolean;
}

export interface HooksByConsent {
  /** The user's own hooks. */
  user: ConfiguredHook[];
  /** Workspace hooks the user consented to (or the CLI trusted). */
  consented: ConfiguredHook[];
  /** Workspace hooks to ask about, each with its definition as written (`describeHook`). */
  needConsent: ConfiguredHook[];
  /** Workspace hooks of an untrusted workspace: neither run nor asked about. */
  untrusted: ConfiguredHook[];
  /** `user` then `consented`: what the session may run. */
  runnable: ConfiguredHook[];
  /** For the user: what does not run and why. */
  notices: UserText[];
}

export function sortHooksByConsent(hooks: readonly ConfiguredHook[], state: ConsentState): HooksByConsent {
  const sorted: HooksByConsent = { user: [], consented: [], needConsent: [], untrusted: [], runnable: [], notices: [] };
  for (const hook of hooks) {
    if (hook.origin.scope === 'user') sorted.user.push(hook);
    else if (!state.workspaceTrusted) sorted.untrusted.push(hook);
    else if (state.trustWorkspaceHooks === true || state.consentedKeys.has(hook.consentKey)) sorted.consented.push(hook);
    else sorted.needConsent.push(hook);
  }
  sorted.runnable = [...sorted.user, ...sorted.consented];
  const [firstUntrusted, ...moreUntrusted] = sorted.untrusted;
  if (firstUntrusted) {
    sorted.notices.push(userText('hooks.untrusted', { count: sorted.untrusted.length, hooks: describeHooks(firstUntrusted, moreUntrusted) }));
  }
  return sorted;
}

/** The notice for workspace hooks the user was asked about and did not allow (each front end's words say how to allow them). */
export function withheldHooksNotice(withheld: readonly ConfiguredHook[]): UserText | undefined {
  const [first, ...rest] = withheld;
  return first ? userText('hooks.withheld', { hooks: describeHooks(first, rest) }) : undefined;
}

/**
 * What a session's start tells the user about its hooks, the same on every front end: settings with
 * problems (an error drops its entry; info is what Claude Code runs and Evergreen does not), workspace
 * hooks of an untrusted workspace, and those left out for want of consent, with how to allow them
 * (worded by each front end: a VS Code prompt, a CLI flag).
 */
export function hookStartNotices(problems: readonly HookConfigProblem[], sorted: HooksByConsent): { level: 'warning' | 'info'; message: UserText }[] {
  const notices = problems.map((problem) => ({ level: problem.level === 'error' ? ('warning' as const) : ('info' as const), message: userText('hooks.settingsProblem', { where: problem.where, problem: problem.message }) }));
  for (const message of sorted.notices) notices.push({ level: 'info', message });
  const withheld = withheldHooksNotice(sorted.needConsent);
  if (withheld) notices.push({ level: 'warning', message: withheld });
  return notices;
}
