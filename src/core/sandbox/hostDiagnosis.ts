/**
 * Why user namespaces fail on this Linux host, and the exact fix, for the sandbox's "cannot run
 * here" message (shell/commandSandbox.ts's `sandboxNotice` shows it). bubblewrap, the overlay's
 * `unshare` and the seccomp helper all need namespaces that hold capabilities:
 *
 * - In a container (Dev Containers, Codespaces, Docker), Docker's default seccomp profile refuses
 *   the namespace calls, its docker-default AppArmor profile refuses the mounts, and a /proc with
 *   masked paths cannot be mounted anew in the sandbox; each has a `--security-opt` that lifts it,
 *   which devcontainer.json's `runArgs` passes.
 * - On Ubuntu 24.04 and later (GitHub's ubuntu-24.04 runners too) AppArmor strips the capabilities
 *   of unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1).
 * - Older Debian kernels and some hardened hosts turn them off with a sysctl.
 *
 * Read from /proc only; the caller gives the reader, so tests describe a host without being one.
 */

import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';

export interface HostReader {
  /** A file's text, or undefined when it cannot be read. */
  read(file: string): string | undefined;
  exists(file: string): boolean;
}

/** The `--security-opt` values a container needs for the sandbox, by what blocks it. */
export type ContainerOption = 'seccomp=unconfined' | 'apparmor=unconfined' | 'systempaths=unconfined';

/** Why each option is needed, as the notice says it. */
const CONTAINER_OPTION_WHY: Record<ContainerOption, 'start.sandboxContainerSeccomp' | 'start.sandboxContainerAppArmor' | 'start.sandboxContainerMaskedProc'> = {
  'seccomp=unconfined': 'start.sandboxContainerSeccomp',
  'apparmor=unconfined': 'start.sandboxContainerAppArmor',
  'systempaths=unconfined': 'start.sandboxContainerMaskedProc',
};

export function inContainer(host: HostReader): boolean {
  if (host.exists('/.dockerenv') || host.exists('/run/.containerenv')) return true;
  return /docker|containerd|kubepods|libpod|lxc/.test(host.read('/proc/1/cgroup') ?? '');
}

/** What of the container blocks the sandbox (all three when nothing can be read: the safe advice). */
export function containerOptions(host: HostReader): ContainerOption[] {
  const options: ContainerOption[] = [];
  const status = host.read('/proc/self/status');
  if (status === undefined || /^Seccomp:\s*2\b/m.test(status)) options.push('seccomp=unconfined');
  const profile = (host.read('/proc/self/attr/apparmor/current') ?? host.read('/proc/self/attr/current') ?? '').trim();
  if (profile !== '' && !profile.startsWith('unconfined')) options.push('apparmor=unconfined');
  const mounts = host.read('/proc/self/mountinfo');
  // Field 5 of a mountinfo line is the mount point: anything mounted over a path inside /proc masks it.
  if (mounts === undefined || mounts.split('\n').some((line) => (line.split(' ')[4] ?? '').startsWith('/proc/'))) options.push('systempaths=unconfined');
  return options;
}

/** The devcontainer.json lines that let the sandbox run in this container (`options`: at least one). */
export function devcontainerFix(options: readonly ContainerOption[]): UserText {
  const runArgs = options.flatMap((option) => ['"--security-opt"', `"${option}"`]).join(', ');
  const reasons = options.map((option) => userText(CONTAINER_OPTION_WHY[option], { option }));
  const why = reasons.reduceRight((rest, first) => userText('start.sandboxContainerBlockers', { first, rest }));
  return userText('start.sandboxContainerFix', { runArgs, why });
}

/** The fix for user namespaces on this host, or undefined when nothing known blocks them. */
export function userNamespaceFix(host: HostReader): UserText | undefined {
  const sysctl = (name: string) => host.read(`/proc/sys/${name.replace(/\./g, '/')}`)?.trim();
  if (sysctl('user.max_user_namespaces') === '0') return userText('start.sandboxUserNamespacesOff', { command: 'sudo sysctl -w user.max_user_namespaces=15000' });
  if (sysctl('kernel.unprivileged_userns_clone') === '0') return userText('start.sandboxUnprivilegedUserNamespacesOff', { command: 'sudo sysctl -w kernel.unprivileged_userns_clone=1' });
  if (inContainer(host)) return devcontainerFix(containerOptions(host));
  if (sysctl('kernel.apparmor_restrict_unprivileged_userns') === '1') {
    return userText('start.sandboxAppArmorRestricts', {
      command: 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
      persist: "echo 'kernel.apparmor_restrict_unprivileged_userns=0' | sudo tee /etc/sysctl.d/60-evergreen-userns.conf",
    });
  }
  return undefined;
}
