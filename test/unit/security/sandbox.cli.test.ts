// Issue 18 in the CLI: --yes approves commands in the sandbox, never a run outside it; without a
// terminal such a run is declined with its own message. --no-sandbox is warned about, and the
// allowed domains are checked before anything starts.
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../../src/cli/args';
import { PACKAGE_REGISTRY_DOMAINS } from '../../../src/core/sandbox/policy';

describe('security: the CLI and the command sandbox', function () {
  this.timeout(60_000);

  describe('parseCliArgs', () => {
    const parse = (...args: string[]) => parseCliArgs(args, '/tmp');

    it('keeps the sandbox on with no domains by default; --no-sandbox turns it off', () => {
      const defaults = parse();
      assert.equal(defaults.sandbox, true);
      assert.deepEqual(defaults.allowedDomains, []);
      assert.equal(parse('--no-sandbox').sandbox, false);
    });

    it('takes --allow-domain entries, lower-cased and de-duplicated', () => {
      assert.deepEqual(parse('--allow-domain', 'GitHub.com', '--allow-domain', '*.example.com', '--allow-domain', 'github.com').allowedDomains, ['github.com', '*.example.com']);
    });

    it('--allow-package-registries adds the registries (npm among them) to the given domains', () => {
      const options = parse('--allow-package-registries', '--allow-domain', 'github.com');
      assert.ok(options.allowedDomains.includes('registry.npmjs.org'));
      assert.ok(options.allowedDomains.includes('github.com'));
      assert.deepEqual(options.allowedDomains, [...PACKAGE_REGISTRY_DOMAINS, 'github.com']);
    });

    it('--allow-command is repeatable and empty by default; an entry that is not one plain command prefix is a usage error', () => {
      assert.deepEqual(parse().shellAllowList, []);
      assert.deepEqual(parse('--allow-command', 'git status', '--allow-command', 'ls').shellAllowList, ['git status', 'ls']);
      for (const bad of ['', '   ', 'ls && rm -rf /', 'ls > out', 'echo $(id)', 'FOO=1 make']) {
        assert.throws(() => parse('--allow-command', bad), (error: unknown) => error instanceof UsageError && /--allow-command/.test(error.message), JSON.stringify(bad));
      }
    });

    it("'*', '*.*' and a non-domain are usage errors that say what is wrong", () => {
      assert.throws(() => parse('--allow-domain', '*'), (error: unknown) => error instanceof UsageError && /would open the whole network/.test(error.message));
      assert.throws(() => parse('--allow-domain', '*.*'), (error: unknown) => error instanceof UsageError && /would open the whole network/.test(error.message));
      assert.throws(() => parse('--allow-domain', 'not a domain'), (error: unknown) => error instanceof UsageError && /"not a domain" is not a domain name/.test(error.message));
      assert.throws(() => parse('--allow-domain', 'https://example.com/'), UsageError);
      assert.throws(() => parse('--allow-domain', ''), UsageError);
    });
  });
});
