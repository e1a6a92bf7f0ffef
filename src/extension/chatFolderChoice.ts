/**
 * Which workspace folder a chat works in (issue 33: multi-root workspaces). A chat works in one
 * folder (its tools are confined there), chosen when it starts: a resumed chat in the folder it
 * was started in, a new chat in the folder the user last chose. No `vscode` here: the decision is
 * tested in node, chatFolders.ts asks and remembers.
 */
export type FolderDecision =
  | { kind: 'use'; folder: string }
  /** Several folders and no choice that still applies: the user picks. */
  | { kind: 'ask'; reason: 'several' | 'resumedFolderGone' }
  | { kind: 'none' };

export function decideChatFolder(input: {
  /** The workspace's folders on disk, in the workspace's order. */
  folders: readonly string[];
  /** The folder the resumed session was started in (its meta.json). */
  resumed?: string;
  /** The folder the user chose last in this workspace. */
  remembered?: string;
}): FolderDecision {
  const { folders, resumed, remembered } = input;
  if (folders.length === 0) return { kind: 'none' };
  if (resumed !== undefined && folders.includes(resumed)) return { kind: 'use', folder: resumed };
  // One folder: the only place a chat can work (a resumed session whose folder moved comes here too).
  if (folders.length === 1) return { kind: 'use', folder: folders[0]! };
  if (resumed !== undefined) return { kind: 'ask', reason: 'resumedFolderGone' };
  if (remembered !== undefined && folders.includes(remembered)) return { kind: 'use', folder: remembered };
  return { kind: 'ask', reason: 'several' };
}
