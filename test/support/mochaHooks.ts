// Root hooks for the unit suite: the sandbox library's proxy servers (started by the first
// sandboxed command) would keep mocha alive after the last test.
import { shutdownOsSandbox } from '../../src/core/sandbox/srt';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await shutdownOsSandbox();
  },
};
