// Hooks compatible with Claude Code's (issue 29): the seam the session, the extension and the CLI use.
export { DEFAULT_HOOK_TIMEOUT_SECONDS, MAX_HOOK_TIMEOUT_SECONDS, describeHook, type ConfiguredHook, type HookConfigProblem, type HookOrigin, type HookScope } from './config';
export { loadHooks, HOOKS_SETTING, USER_HOOK_FILES, WORKSPACE_HOOK_FILES, type HookSources, type LoadedHooks } from './load';
export { hookStartNotices, sortHooksByConsent, withheldHooksNotice, type ConsentState, type HooksByConsent } from './consent';
export { HOOK_EVENTS, hookInput, type HookCall, type HookCallFor, type HookEventName, type HookInput, type HookSession } from './events';
export { hooksFor, runHooks, type HookDispatchOptions } from './dispatch';
export { MAX_STOP_HOOK_CONTINUATIONS, decideHookOutcome, type HookNotice, type HookOutcome, type HookOutcomeFor, type HookPermission, type HookRunRecord, type HookText } from './decisions';
export { MAX_HOOK_OUTPUT_BYTES } from './runner';
