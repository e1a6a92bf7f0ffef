// Public surface of the tools layer (pure TypeScript, no 'vscode').
export * from './types';
export * from './approval';
export { NodeWorkspace, WorkspaceAccessError, type ResolveOptions, type Workspace } from './workspace';
export { createToolRegistry, builtInToolTraits, contextTraitsOf, toolTraitsLookup, CANCELLED_RESULT_TEXT, type ApiToolSpec, type ToolRegistry, type ToolRegistryOptions } from './registry';
export { createReadFileTool, type ReadFileInput, type ReadFileOptions } from './readFile';
export { createWriteFileTool, type WriteFileInput } from './writeFile';
export { createEditFileTool, type EditFileInput } from './editFile';
export { createListFilesTool, type ListFilesInput, type ListFilesOptions } from './listFiles';
export { createGrepSearchTool, findRipgrepOnPath, type GrepInput, type GrepOptions } from './grepSearch';
export { createRunShellTool, type RunShellInput, type RunShellOptions } from './runShell';
export { createRecallTool, parseRecallQuery, RECALL_DEFAULTS, type RecallInput, type RecallToolOptions } from './recall';
export { RECALL_TOOL, recallCall } from './recallRef';
export { createCompactTool, type CompactInput } from './compact';
export { createTodoWriteTool, type TodoWriteInput } from './todoWrite';
export { latestTodos, parseTodoList, todoListText, TODO_DEFAULTS, TODO_STATUSES, TODO_WRITE_TOOL, type TodoItem, type TodoStatus } from './todos';
