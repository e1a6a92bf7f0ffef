import assert from 'node:assert/strict';
import { containerOptions, userNamespaceFix, type HostReader } from '../../src/core/sandbox/hostDiagnosis';
import { sandboxNotice } from '../../src/core/shell/commandSandbox';

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
      userNamespaceFix(docker)?.split(' (')[0],
      'add to .devcontainer/devcontainer.json "runArgs": ["--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined", "--security-opt", "systempaths=unconfined"]',
    );
  });

  it('asks only for what blocks it: a host without AppArmor and an unmasked /proc needs only the seccomp option', () => {
    const podmanish = host({ '/proc/self/status': 'Seccomp:\t2\n', '/proc/self/mountinfo': DOCKER_MOUNTS.split('\n').slice(0, 2).join('\n'), '/proc/1/cgroup': '0::/kubepods/besteffort/pod1' });
    assert.deepEqual(containerOptions(podmanish), ['seccomp=unconfined']);
    assert.match(userNamespaceFix(podmanish)!, /"runArgs": \["--security-opt", "seccomp=unconfined"\]/);
  });

  it("Ubuntu 24.04's AppArmor restriction (GitHub's runners): the sysctl, and how to keep it", () => {
    const ubuntu = host({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1\n', '/proc/self/status': 'Seccomp:\t0\n' });
    assert.match(userNamespaceFix(ubuntu)!, /^AppArmor restricts unprivileged user namespaces here .*sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/);
  });

  it('user namespaces turned off by a sysctl, and nothing known to blame', () => {
    assert.match(userNamespaceFix(host({ '/proc/sys/kernel/unprivileged_userns_clone': '0' }))!, /kernel\.unprivileged_userns_clone=1/);
    assert.match(userNamespaceFix(host({ '/proc/sys/user/max_user_namespaces': '0\n' }))!, /user\.max_user_namespaces/);
    assert.equal(userNamespaceFix(host({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '0', '/proc/self/status': 'Seccomp:\t0\n' })), undefined);
  });

  it("the sandbox's notice carries the fix word for word", () => {
    const fix = userNamespaceFix(host({ '/proc/self/status': 'Seccomp:\t2\n', '/proc/self/mountinfo': DOCKER_MOUNTS }, ['/.dockerenv']))!;
    const notice = sandboxNotice({ kind: 'unavailable', problem: 'a test command failed: bwrap: No permissions to create a new namespace', installHint: fix });
    assert.equal(notice?.level, 'warning');
    assert.ok(notice!.message.endsWith(`To fix: ${fix}`), notice!.message);
  });
});
