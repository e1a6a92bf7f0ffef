// The sandbox library's Windows back ends (windows-sandbox-utils.js, mxc-sandbox-utils.js), which
// run only when the platform is Windows. Evergreen does not sandbox commands on Windows (they ask
// every time; docs/security.md), and the two modules are 40 KB of the bundle, so esbuild.mjs puts
// this in their place for the imports of sandbox-manager.js. The constants and the error class keep
// their values (the library reads them in code shared with other platforms); every function throws.
const unavailable = (name) => () => {
  throw new Error(`${name}: the sandbox library's Windows support is not in this build (scripts/stubs/sandbox-windows.mjs)`);
};

export class WindowsSandboxError extends Error {
  constructor(code, message, subcommand) {
    super(message);
    this.name = 'WindowsSandboxError';
    this.code = code;
    this.subcommand = subcommand;
  }
}
export const DEFAULT_WINDOWS_PROXY_PORT_RANGE = [60080, 60089];
export const WINDOWS_INSTALL_COMMAND = 'npx @anthropic-ai/sandbox-runtime windows-install';
export const MXC_SDK_MISSING = 'the Windows sandbox is not in this build';

export const checkWindowsDependencies = unavailable('checkWindowsDependencies');
export const checkWindowsDependenciesAsync = unavailable('checkWindowsDependenciesAsync');
export const wrapCommandWithSandboxWindows = unavailable('wrapCommandWithSandboxWindows');
export const parseWindowsBinShell = unavailable('parseWindowsBinShell');
export const expandWindowsFsPaths = unavailable('expandWindowsFsPaths');
export const rankWindowsFsAccess = unavailable('rankWindowsFsAccess');
export const restoreWindowsAcl = unavailable('restoreWindowsAcl');
export const grantWindowsAclPersistent = unavailable('grantWindowsAclPersistent');
export const windowsSetupVersionMismatch = unavailable('windowsSetupVersionMismatch');
export const windowsSrtWinOutdatedError = unavailable('windowsSrtWinOutdatedError');
export const missingWindowsSrtWinCapability = unavailable('missingWindowsSrtWinCapability');
export const windowsGrantsBeneathDenies = unavailable('windowsGrantsBeneathDenies');
export const getWindowsProfileReadStatus = unavailable('getWindowsProfileReadStatus');
export const getWindowsProfileReadStatusAsync = unavailable('getWindowsProfileReadStatusAsync');
export const grantWindowsProfileRead = unavailable('grantWindowsProfileRead');
export const retryWindowsProfileStale = unavailable('retryWindowsProfileStale');
export const windowsProfileGrantRefreshable = unavailable('windowsProfileGrantRefreshable');
export const windowsProfileExclusionConflicts = unavailable('windowsProfileExclusionConflicts');
export const revokeWindowsAclChecked = unavailable('revokeWindowsAclChecked');
export const getWindowsSandboxUserStatusAsync = unavailable('getWindowsSandboxUserStatusAsync');
export const ensurePersistentWindowsCa = unavailable('ensurePersistentWindowsCa');
export const verifyWindowsWfpEgress = unavailable('verifyWindowsWfpEgress');
export const resolveSrtWin = unavailable('resolveSrtWin');
export const isMxcSdkInstalled = unavailable('isMxcSdkInstalled');
export const resolveMxcSdk = unavailable('resolveMxcSdk');
export const verifyMxcBackend = unavailable('verifyMxcBackend');
export const buildMxcRequest = unavailable('buildMxcRequest');
export const spawnMxcRequest = unavailable('spawnMxcRequest');
// What the library's index re-exports from them (its own entry point reads none of these on other platforms).
export const getSrtWinPath = unavailable('getSrtWinPath');
export const VENDORED_SRT_WIN_EXE = 'srt-win.exe';
export const checkWindowsSandboxStatus = unavailable('checkWindowsSandboxStatus');
export const checkWindowsSandboxStatusAsync = unavailable('checkWindowsSandboxStatusAsync');
export const getWindowsWfpStatus = unavailable('getWindowsWfpStatus');
export const getWindowsWfpStatusAsync = unavailable('getWindowsWfpStatusAsync');
export const getWindowsSandboxUserStatus = unavailable('getWindowsSandboxUserStatus');
export const getWindowsSandboxCaCert = unavailable('getWindowsSandboxCaCert');
export const windowsTrustCa = unavailable('windowsTrustCa');
export const windowsTrustCaAsync = unavailable('windowsTrustCaAsync');
export const windowsStateDir = unavailable('windowsStateDir');
export const installWindowsSandbox = unavailable('installWindowsSandbox');
export const installWindowsSandboxAsync = unavailable('installWindowsSandboxAsync');
export const uninstallWindowsSandbox = unavailable('uninstallWindowsSandbox');
export const windowsInstallInstructions = unavailable('windowsInstallInstructions');
export const stampWindowsAcl = unavailable('stampWindowsAcl');
export const grantWindowsAcl = unavailable('grantWindowsAcl');
export const revokeWindowsAcl = unavailable('revokeWindowsAcl');
export const forgetWindowsProfileRead = unavailable('forgetWindowsProfileRead');
export const forgetWindowsProfileReadAsync = unavailable('forgetWindowsProfileReadAsync');
export const windowsProfileReadEnv = unavailable('windowsProfileReadEnv');
export const windowsProfileGrantSkipReason = unavailable('windowsProfileGrantSkipReason');
export const windowsProfileGrantNotice = unavailable('windowsProfileGrantNotice');
export const WINDOWS_PROFILE_READ_ENV_VARS = [];
export const buildGitConfigEnv = unavailable('buildGitConfigEnv');
export const parseWindowsSandboxError = unavailable('parseWindowsSandboxError');
export const isUncPath = unavailable('isUncPath');
export const WINDOWS_ALLOW_LOOPBACK_EFFECT = 'Loopback: the Windows sandbox is not in this build';
export const WINDOWS_LOOPBACK_PROBE_PORT = 1;
export const SRT_WIN_DISPATCH_ARG1 = '--srt-win';
