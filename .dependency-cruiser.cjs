// Import walls of src, checked by dependency-cruiser in `npm run lint` (docs/architecture.md,
// "Imports and lint walls"; test/unit/lint.layers.test.ts proves each kind of rule bites).
// The vscode and webview walls stay in eslint.config.mjs (it also sees import('vscode') and
// require('vscode')); this file owns the order of the layers and the ban on cycles.
//
// Layers of src/core, bottom to top. A module may import its own layer and the layers listed
// for it, nothing above:
//   base     src/core/*.ts: logger, secrets, visibleText. Leaf helpers every layer uses.
//   model    the provider seam and back ends.
//   tools    the tools, their approval policy and confined file access (tools/todos reads model content).
//   sandbox  the OS sandbox. It sits above tools because it implements the contract run_shell
//            declares (tools/commandSandbox.ts) and builds its policy from the tools' list of
//            protected paths; only the agent's factory and the front ends start one.
//   storage  sessions on disk and the typed transcript (writes through tools/atomicWrite.ts).
//   mcp      MCP servers: their configuration, connections and tools. Beside sandbox and storage:
//            it builds tools (the tools' contract) and starts processes (tools/processGroup.ts);
//            only the agent's factory starts its servers.
//   hooks    the user's commands at each step of the agent (Claude Code's hooks): their settings,
//            consent, runs and decisions. Beside mcp: it starts processes through the tools' process
//            tree and the sandbox contract (tools/commandSandbox.ts); only the agent runs them.
//   checkpoints  the workspace's checkpoints: tool records and a shadow Git snapshot per turn
//            (issue 17). Beside storage: it writes workspace files back through the tools'
//            confined writer; only the agent starts one.
//   context  the context engine: reads transcript entries, never the agent.
//   agent    the session loop, subagents, events and the transcript renderer: the top of the core.
// Above the core: src/protocol.ts (core types the webview needs), src/extension, src/cli; the
// webview sees only src/protocol.ts.
//
// Type-only imports count (tsPreCompilationDeps): a type edge is still a dependency of meaning,
// and a later value import along it would turn a cycle into an `undefined` at module load.

const BASE = '^src/core/[^/]+\\.ts$';
const dir = (name) => `^src/core/${name}/`;

/** Each layer and the paths below it that it may import (besides itself). */
const CORE_LAYERS = [
  { name: 'base', path: BASE, may: [] },
  { name: 'model', path: dir('model'), may: [BASE] },
  { name: 'tools', path: dir('tools'), may: [BASE, dir('model')] },
  { name: 'sandbox', path: dir('sandbox'), may: [BASE, dir('model'), dir('tools')] },
  { name: 'storage', path: dir('storage'), may: [BASE, dir('model'), dir('tools')] },
  { name: 'mcp', path: dir('mcp'), may: [BASE, dir('model'), dir('tools')] },
  { name: 'hooks', path: dir('hooks'), may: [BASE, dir('tools')] },
  { name: 'checkpoints', path: dir('checkpoints'), may: [BASE, dir('model'), dir('tools')] },
  { name: 'context', path: dir('context'), may: [BASE, dir('model'), dir('tools'), dir('storage')] },
  { name: 'agent', path: dir('agent'), may: [BASE, dir('model'), dir('tools'), dir('sandbox'), dir('storage'), dir('mcp'), dir('hooks'), dir('checkpoints'), dir('context')] },
];

const layerRules = CORE_LAYERS.map((layer) => ({
  name: `core-${layer.name}-imports-only-below`,
  comment: `src/core/${layer.name === 'base' ? '*.ts' : layer.name} may import only its own layer and ${layer.may.length ? layer.may.join(', ') : 'nothing else in src'} (.dependency-cruiser.cjs lists the order).`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: '^src/', pathNot: [layer.path, ...layer.may] },
}));

/** The layers around the core: who may import whom (besides itself). */
const OUTER_RULES = [
  { name: 'protocol-imports-only-core', from: '^src/protocol\\.ts$', may: ['^src/protocol\\.ts$', '^src/core/'] },
  { name: 'cli-imports-only-core', from: '^src/cli/', may: ['^src/cli/', '^src/core/'] },
  { name: 'extension-imports-only-core-and-protocol', from: '^src/extension/', may: ['^src/extension/', '^src/core/', '^src/protocol\\.ts$'] },
  { name: 'webview-imports-only-protocol', from: '^src/webview/', may: ['^src/webview/', '^src/protocol\\.ts$'] },
].map((rule) => ({
  name: rule.name,
  comment: `${rule.from} may import only ${rule.may.join(', ')} from src.`,
  severity: 'error',
  from: { path: rule.from },
  to: { path: '^src/', pathNot: rule.may },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle in src, type-only imports included: move the shared piece into a module both can import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    ...OUTER_RULES,
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing would hide an edge from every rule above.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages whose subpaths exist only through package.json "exports" (the MCP SDK).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
