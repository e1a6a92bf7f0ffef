// Root hooks of the system tier (test/system): the sandbox library's proxy servers (started by the
// first sandboxed command) would keep a mocha worker alive after the file's last test.
import { shutdownOsSandbox } from '../../src/core/sandbox/srt';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await shutdownOsSandbox();
  },
};
