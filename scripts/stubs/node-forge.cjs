// node-forge, which the sandbox library (@anthropic-ai/sandbox-runtime) uses only to make the
// certificate authority of its TLS termination (`network.tlsTerminate`: mitm-ca.js, mitm-leaf.js).
// Evergreen never turns TLS termination on (src/core/sandbox/srt.ts gives the sandbox allowed and
// denied domains only), and node-forge is 300 KB of the bundle, so esbuild.mjs puts this in its
// place. Loading it is harmless (the library reads `forge.pki`, `asn1.Class` and the like when it
// loads); calling or constructing anything from it throws, naming this file.
const message = 'node-forge is not in this build: the sandbox\'s TLS termination is not used by Evergreen (scripts/stubs/node-forge.cjs)';
const unavailable = new Proxy(function unavailable() {}, {
  // Not an ES module (esbuild's interop asks), so the default import is this object itself.
  get: (_target, key) => (key === '__esModule' ? undefined : unavailable),
  apply() {
    throw new Error(message);
  },
  construct() {
    throw new Error(message);
  },
});
module.exports = unavailable;
