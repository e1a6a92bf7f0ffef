import assert from 'node:assert/strict';
import { containerOptions, userNamespaceFix, type HostReader } from '../../src/core/sandbox/hostDiagnosis';
import { SANDBOX_INSTALL_HINT_DEBIAN, sandboxNotice } from '../../src/core/shell/commandSandbox';
import { userText } from '../../src/core/texts/userText';
import { configureWords } from '../../src/frontends/words';
import { said } from '../support/said';

/** A host described by its /proc files. */
function host(files: Record<string, string>, present: string[] = []): HostReader {
  return { read: (file) => files[file], exists: (file) => present.includes(file) || file in files };
}

const DOCKER_MOUNTS = [
  '1200 1100 0:50 / / rw,relatime - overlay overlay rw',
  '1201 1200 0:52 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '1210 1201 0:53 /null /proc/kcore rw,nosuid - tmpfs tmpfs rw',
  '1211 1201 0:54 / /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw',
].join('\n');

describe('why the sandbox cannot make user namespaces here, and the exact fix (issue 32, remote development)', () => {
  it("a container with Docker's defaults: devcontainer.json's runArgs with the three security options", () => {
    const docker = host({ '/proc/self/status': 'Name:\tnode\nSeccomp:\t2\nSeccomp_filters:\t1\n', '/proc/self/attr/current': 'docker-default (enforce)\n', '/proc/self/mountinfo': DOCKER_MOUNTS }, ['/.dockerenv']);
    assert.deepEqual(containerOptions(docker), ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined']);
    assert.equal(
      said(userNamespaceFix(docker)),
      'add to .devcontainer/devcontainer.json "runArgs": ["--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined", "--security-opt", "systempaths=unconfined"] (or the same --security-opt flags to docker run), then rebuild the container (' +
        "seccomp=unconfined: Docker's default seccomp profile refuses the calls that make user namespaces; apparmor=unconfined: the container's AppArmor profile (docker-default) refuses the mounts the sandbox makes; systempaths=unconfined: the container's /proc has masked paths, so the sandbox cannot mount its own /proc)",
    );
  });

  it('asks only for what blocks it: a host without AppArmor and an unmasked /proc needs only the seccomp option', () => {
    const podmanish = host({ '/proc/self/status': 'Seccomp:\t2\n', '/proc/self/mountinfo': DOCKER_MOUNTS.split('\n').slice(0, 2).join('\n'), '/proc/1/cgroup': '0::/kubepods/besteffort/pod1' });
    assert.deepEqual(containerOptions(podmanish), ['seccomp=unconfined']);
    assert.match(said(userNamespaceFix(podmanish)!), /"runArgs": \["--security-opt", "seccomp=unconfined"\] .*then rebuild the container \(seccomp=unconfined: Docker's default seccomp profile refuses the calls that make user namespaces\)$/);
  });

  it("Ubuntu 24.04's AppArmor restriction (GitHub's runners): the sysctl, and how to keep it", () => {
    const ubuntu = host({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1\n', '/proc/self/status': 'Seccomp:\t0\n' });
    assert.equal(
      said(userNamespaceFix(ubuntu)!),
      "AppArmor restricts unprivileged user namespaces here (Ubuntu 24.04 and later): sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, and to keep it after a restart echo 'kernel.apparmor_restrict_unprivileged_userns=0' | sudo tee /etc/sysctl.d/60-evergreen-userns.conf (or an AppArmor profile that allows userns for /usr/bin/bwrap and /usr/bin/unshare)",
    );
  });

  it('user namespaces turned off by a sysctl, and nothing known to blame', () => {
    assert.equal(said(userNamespaceFix(host({ '/proc/sys/kernel/unprivileged_userns_clone': '0' }))!), 'unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone is 0): sudo sysctl -w kernel.unprivileged_userns_clone=1');
    assert.equal(said(userNamespaceFix(host({ '/proc/sys/user/max_user_namespaces': '0\n' }))!), 'user namespaces are turned off (user.max_user_namespaces is 0): sudo sysctl -w user.max_user_namespaces=15000');
    assert.equal(userNamespaceFix(host({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '0', '/proc/self/status': 'Seccomp:\t0\n' })), undefined);
  });

  it("the sandbox's notice carries the fix word for word", () => {
    const fix = userNamespaceFix(host({ '/proc/self/status': 'Seccomp:\t2\n', '/proc/self/mountinfo': DOCKER_MOUNTS }, ['/.dockerenv']))!;
    const notice = sandboxNotice({ kind: 'unavailable', problem: 'a test command failed: bwrap: No permissions to create a new namespace', installHint: fix });
    assert.equal(notice?.level, 'warning');
    assert.equal(
      said(notice!.message),
      `The command sandbox cannot run here (a test command failed: bwrap: No permissions to create a new namespace), so every shell command asks first; the allow-list and auto approval are suspended until it works. To fix: ${said(fix)}`,
    );
  });
});

describe("the sandbox's start notices, in each front end's words", () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('says nothing of a sandbox that works with its overlay, and says why it holds the workspace with placeholders', () => {
    assert.equal(sandboxNotice({ kind: 'on', allowedDomains: [] }), undefined);
    const notice = sandboxNotice({ kind: 'on', allowedDomains: [], limitation: 'unshare (util-linux) is not installed' })!;
    assert.equal(notice.level, 'info');
    assert.match(said(notice.message), /^The command sandbox works, but the workspace overlay is not available here \(unshare \(util-linux\) is not installed\), so files such as \.vscode .* give the overlay\.$/);
  });

  it('a sandbox the user turned off names the setting in VS Code and the flag in the CLI', () => {
    const notice = sandboxNotice({ kind: 'disabled' })!;
    assert.equal(notice.level, 'warning');
    const rest = 'shell commands run with your full permissions, and the allow-list and auto approval apply to them unconfined.';
    assert.equal(said(notice.message), `The command sandbox is off (--no-sandbox): ${rest}`);
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(notice.message), `The command sandbox is off (evergreen.sandbox.enabled): ${rest}`);
  });

  it('the install fix per platform; on an unsupported one each front end says how to run unconfined', () => {
    assert.equal(said(userText('start.sandboxInstallLinux', { command: SANDBOX_INSTALL_HINT_DEBIAN })), 'sudo apt-get install bubblewrap socat ripgrep (Debian/Ubuntu; other distributions: the bubblewrap, socat and ripgrep packages)');
    assert.equal(said(userText('start.sandboxInstallMac', { command: 'brew install ripgrep' })), 'brew install ripgrep (sandbox-exec ships with macOS)');
    const unsupported = userText('start.sandboxUnsupportedPlatform', {});
    assert.equal(said(unsupported), 'the sandbox supports Linux and macOS; on this system run with --no-sandbox to run commands unconfined');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(unsupported), 'the sandbox supports Linux and macOS; on this system set evergreen.sandbox.enabled to false to run commands unconfined');
  });
});
