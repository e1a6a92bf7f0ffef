import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorktreeRecord } from '../core/worktrees/manager';
import type { Hunk } from '../core/worktrees/review';
import { CHANGE_ITEM_CONTEXT, changeKey, fileKeys, fileRow, hunkLines, hunkRow, type ChangeDecisions, type ReviewFile } from '../frontends/hunkReview';

/**
 * The Changes under a background chat's row (issue 31): its changed files, and under each its
 * hunks, each with Accept and Reject inline, as Source Control lists changes and stages them, and
 * as other agents' extensions keep or undo a hunk. A tree, not CodeLens in the diff editor: the
 * decisions stay visible for every file at once, and Apply Accepted on the chat's row acts on them all.
 */
export type ChangeNode = { kind: 'file'; record: WorktreeRecord; file: ReviewFile } | { kind: 'hunk'; record: WorktreeRecord; file: ReviewFile; index: number; hunk: Hunk };

export function isChangeNode(value: unknown): value is ChangeNode {
  return typeof value === 'object' && value !== null && 'kind' in value && (value.kind === 'file' || value.kind === 'hunk') && 'record' in value;
}

/** The decision keys a node stands for: a hunk's own, or every one of a file's. */
export function nodeKeys(node: ChangeNode): string[] {
  return node.kind === 'hunk' ? [changeKey(node.file.path, node.hunk)] : fileKeys(node.file);
}

export function fileNodes(record: WorktreeRecord, files: readonly ReviewFile[]): ChangeNode[] {
  return files.map((file) => ({ kind: 'file', record, file }));
}

export function hunkNodes(node: ChangeNode): ChangeNode[] {
  if (node.kind !== 'file' || node.file.hunks === undefined) return [];
  return node.file.hunks.map((hunk, index) => ({ kind: 'hunk', record: node.record, file: node.file, index, hunk }));
}

const DECISION_ICONS = { accepted: 'check', rejected: 'close', applied: 'pass-filled' } as const;

export function changeItem(node: ChangeNode, decisions: ChangeDecisions): vscode.TreeItem {
  const { record, file } = node;
  const review = (line?: number): vscode.Command => ({ title: 'Review Changes', command: 'evergreen.reviewBackgroundChanges', arguments: [record, file.path, line] });
  if (node.kind === 'file') {
    const row = fileRow(file, fileKeys(file).map((key) => decisions.decision(record, key)));
    const item = new vscode.TreeItem(row.label, file.hunks === undefined ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded);
    item.id = JSON.stringify([record.checkout, record.name, file.path]);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.resourceUri = vscode.Uri.file(path.join(record.folder, ...file.path.split('/')));
    item.contextValue = CHANGE_ITEM_CONTEXT.file;
    item.command = review();
    return item;
  }
  const decision = decisions.decision(record, changeKey(file.path, node.hunk));
  const row = hunkRow(node.hunk, decision);
  const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
  item.id = JSON.stringify([record.checkout, record.name, file.path, node.index, changeKey(file.path, node.hunk)]);
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.contextValue = CHANGE_ITEM_CONTEXT.hunk(decision);
  item.iconPath = new vscode.ThemeIcon(decision === undefined ? 'circle-outline' : DECISION_ICONS[decision]);
  item.command = review(hunkLines(node.hunk).start);
  return item;
}
