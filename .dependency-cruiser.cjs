// Import walls of src, checked by dependency-cruiser in `npm run lint` (docs/architecture.md,
// "Imports and lint walls"; test/system/lint.layers.test.ts proves each kind of rule bites).
// The vscode and webview walls stay in eslint.config.mjs (it also sees import('vscode') and
// require('vscode')); this file owns the order of the layers and the ban on cycles.
//
// Layers of src/core, bottom to top. A module may import its own layer and the layers listed
// for it, nothing above. A folder is a subsystem; the layers below `tools` are what the tools are
// built from, each knowing nothing of the tool contract:
//   base     src/core/*.ts: logger, secrets, visibleText, errors (tool failures and cancellation),
//            text (output buffers), regexWorker (a regex off the main thread, for grep and recall),
//            workerTask (one task in a worker thread of its own, e.g. a page turned into markdown).
//            toolNames (the built-in tools' names and Claude Code's, for hooks and tool lists).
//            Leaf helpers every layer uses.
//   texts    what the core says to a user, as kinds with data (issue 27 item 6): one file per
//            subsystem's kinds and the union of them all (texts/userText.ts). Types and builders
//            only, so every layer above base may import it and the events can name every kind.
//   model    the provider seam and back ends.
//   workspace    confined file access: resolve, race-free opens, encodings, atomic writes, walks,
//            .gitignore, the working tree's Git changes.
//   shell    the shell approval analyzer, process groups, and the contract the OS sandbox
//            implements (shell/commandSandbox.ts). Beside workspace: neither needs the other.
//   approvals    the approval policy and the protected paths: above workspace (a write is judged
//            where it really lands) and shell (a command is judged by the analyzer).
//   instructions the project's instruction files, read through the workspace's confinement.
//   todos    the task list derived from the transcript (reads model content), and a plan's steps.
//   definitions  what slash commands, modes and skills read from users' files share (issue 28):
//            where they live and in which precedence, frontmatter, confined reading, tool lists
//            that only narrow. Above workspace (reads through its confinement) and approvals (MCP
//            tool names).
//   memory   the memory folder behind the `memory` tool: /memories paths, confined reads and
//            writes under caps, the listing for a new chat.
//   skills   Agent Skills folders: loading and checking them, the system prompt's list, what the
//            `skill` tool returns.
//   web      fetching a web page safely (addresses, hosts, redirects, limits, charsets) and turning
//            it into markdown; reads workspace/fileio.ts's Windows-1252 table. The web tools'
//            definitions are in tools/, like every tool's.
//   tools    the tool contract (types.ts, args.ts), the registry and every built-in tool's
//            definition: a tool definition lives here, beside the contract it implements, and
//            calls into the subsystems below (which is why none of them may import tools).
//   sandbox  the OS sandbox: implements shell/commandSandbox.ts and builds its policy from the
//            protected paths; only the agent's factory and the front ends start one.
//   storage  sessions on disk and the typed transcript (writes through workspace/atomicWrite.ts;
//            the transcript names the recall tool's shapes, tools/recallTypes.ts).
//   recall   the index `recall` searches: it reads transcripts, so it sits above storage (and
//            storage's own reading of recalled entries, storage/recalledEntries.ts, stays below).
//   archive  a session as one archive and back (issue 32): the manifest and the names an archive
//            may hold, export to a folder or .zip, an all-or-nothing import. Above storage, whose
//            sessions and transcript reader it packs and checks.
//   mcp      MCP servers: their configuration, connections and tools. Beside sandbox and storage:
//            it builds tools (the tools' contract) and starts processes (shell/processGroup.ts);
//            only the agent's factory starts its servers.
//   hooks    the user's commands at each step of the agent (Claude Code's hooks): their settings,
//            consent, runs and decisions. It needs only the shell layer (the process tree and the
//            contract of the sandbox its workspace hooks run in); only the agent runs them.
//   checkpoints  the workspace's checkpoints: tool records and a shadow Git snapshot per turn
//            (issue 17). Beside storage: it writes workspace files back through the confined
//            writer; only the agent starts one.
//   worktrees    the chats' Git worktrees (issue 31): made, found, reviewed, brought home, cleaned
//            up, discarded. Above the sandbox, whose view of a worktree's Git (sandbox/worktreeGit.ts) it fills in.
//   context  the context engine: reads transcript entries, never the agent; knows a hook's note
//            (hooks/notes.ts) from the user's words, and asks the session's hooks around a summary
//            through a seam (it runs none itself).
//   modes, commands  the session's modes (plan's tool rules) and slash commands: above the tools,
//            whose kinds and subagent types they name; neither knows the other.
//   agent    the session loop, subagents and events.
//   insights what a session's transcript says about it over time, for the insights panel (issue
//            33): reads transcript entries and the engine's budget and words, and the agent's
//            rule of what a restore discards. Nothing below knows it: the top of the core.
// Above the core: src/protocol.ts (core types the webview needs), src/frontends (front-end code the
// extension and the CLI share, such as the settings table: it imports only the core), src/extension,
// src/cli; the webview sees only src/protocol.ts.
//
// Type-only imports count (tsPreCompilationDeps): a type edge is still a dependency of meaning,
// and a later value import along it would turn a cycle into an `undefined` at module load.

const BASE = '^src/core/[^/]+\\.ts$';
const dir = (name) => `^src/core/${name}/`;
const TEXTS = dir('texts');

/** The tools and everything they are built from: what a layer above the tools may use of them. */
const TOOLS_AND_BELOW = [
  BASE,
  dir('model'),
  dir('workspace'),
  dir('shell'),
  dir('approvals'),
  dir('instructions'),
  dir('todos'),
  dir('definitions'),
  dir('memory'),
  dir('skills'),
  dir('web'),
  dir('tools'),
];

/** Each layer and the paths below it that it may import (besides itself). */
const CORE_LAYERS = [
  { name: 'base', path: BASE, may: [] },
  { name: 'texts', path: TEXTS, may: [BASE] },
  { name: 'model', path: dir('model'), may: [BASE] },
  { name: 'workspace', path: dir('workspace'), may: [BASE] },
  { name: 'shell', path: dir('shell'), may: [BASE] },
  { name: 'approvals', path: dir('approvals'), may: [BASE, dir('workspace'), dir('shell')] },
  { name: 'instructions', path: dir('instructions'), may: [BASE, dir('workspace')] },
  { name: 'todos', path: dir('todos'), may: [BASE, dir('model')] },
  { name: 'web', path: dir('web'), may: [BASE, dir('workspace')] },
  { name: 'definitions', path: dir('definitions'), may: [BASE, dir('workspace'), dir('approvals')] },
  { name: 'memory', path: dir('memory'), may: [BASE, dir('workspace')] },
  { name: 'skills', path: dir('skills'), may: [BASE, dir('workspace'), dir('definitions')] },
  { name: 'tools', path: dir('tools'), may: TOOLS_AND_BELOW.filter((path) => path !== dir('tools')) },
  { name: 'sandbox', path: dir('sandbox'), may: TOOLS_AND_BELOW },
  { name: 'storage', path: dir('storage'), may: TOOLS_AND_BELOW },
  { name: 'recall', path: dir('recall'), may: [...TOOLS_AND_BELOW, dir('storage')] },
  { name: 'archive', path: dir('archive'), may: [...TOOLS_AND_BELOW, dir('storage')] },
  { name: 'mcp', path: dir('mcp'), may: TOOLS_AND_BELOW },
  { name: 'hooks', path: dir('hooks'), may: [BASE, dir('shell')] },
  { name: 'checkpoints', path: dir('checkpoints'), may: TOOLS_AND_BELOW },
  { name: 'worktrees', path: dir('worktrees'), may: [...TOOLS_AND_BELOW, dir('sandbox')] },
  { name: 'context', path: dir('context'), may: [...TOOLS_AND_BELOW, dir('storage'), dir('recall'), dir('hooks')] },
  { name: 'modes', path: dir('modes'), may: TOOLS_AND_BELOW },
  { name: 'commands', path: dir('commands'), may: TOOLS_AND_BELOW },
  {
    name: 'agent',
    path: dir('agent'),
    may: [...TOOLS_AND_BELOW, dir('sandbox'), dir('storage'), dir('recall'), dir('mcp'), dir('hooks'), dir('checkpoints'), dir('context'), dir('modes'), dir('commands')],
  },
  { name: 'insights', path: dir('insights'), may: [...TOOLS_AND_BELOW, dir('storage'), dir('context'), dir('agent')] },
];

const layerRules = CORE_LAYERS.map((layer) => ({
  name: `core-${layer.name}-imports-only-below`,
  comment: `src/core/${layer.name === 'base' ? '*.ts' : layer.name} may import only its own layer and ${layer.may.length ? layer.may.join(', ') : 'nothing else in src'} (.dependency-cruiser.cjs lists the order).`,
  severity: 'error',
  from: { path: layer.path },
  // Every layer above base and texts says things as kinds: texts is open to all of them.
  to: { path: '^src/', pathNot: [layer.path, ...layer.may, ...(layer.name === 'base' || layer.name === 'texts' ? [] : [TEXTS])] },
}));

/** The layers around the core: who may import whom (besides itself). */
const OUTER_RULES = [
  { name: 'protocol-imports-only-core', from: '^src/protocol(Strings)?\\.ts$', may: ['^src/protocol(Strings)?\\.ts$', '^src/core/'] },
  { name: 'frontends-imports-only-core', from: '^src/frontends/', may: ['^src/frontends/', '^src/core/'] },
  { name: 'cli-imports-only-core-and-frontends', from: '^src/cli/', may: ['^src/cli/', '^src/core/', '^src/frontends/'] },
  { name: 'extension-imports-only-core-frontends-and-protocol', from: '^src/extension/', may: ['^src/extension/', '^src/core/', '^src/frontends/', '^src/protocol\\.ts$'] },
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
