/**
 * The host side of the composer's attachments (issue 17): the @ picker's file and folder options
 * (the workspace honoring .gitignore, fuzzy-matched), the active editor for the one-click chips,
 * the last command of each terminal (through shell integration), and gathering what the kinds
 * that live in VS Code hold at the moment a message is sent.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_DEFAULTS } from '../core/context/defaults';
import fuzzysort from 'fuzzysort';
import * as vscode from 'vscode';
import { AttachmentError, type AttachmentSpec } from '../core/agent/attachments';
import { findFiles } from '../core/workspace/walk';
import { screenText, TERMINAL_OUTPUT_MAX_CHARS, terminalCommandText, withRecoveredOutput, type TerminalCommand, type WorkbenchTerminalCopy } from '../core/agent/terminalCapture';
import { GitChangesError, workingTreeChanges } from '../core/workspace/gitChanges';
import type { AttachmentOption, AttachmentRequest, EditorAutoAttach, HostToWebview } from '../protocol';
import { settingName, SETTINGS_SECTION } from '../frontends/settingsTable';
import { Disposable } from './disposable';
import type { Logger } from '../core/logger';

/** The workspace's file list is reused this long between keystrokes. */
const FILE_LIST_TTL_MS = 15_000;
const OPTIONS_SHOWN = 20;
const PROBLEMS_MAX = 200;

export class ComposerContext extends Disposable {
  private files: { at: number; root: string; list: Promise<{ kind: 'file' | 'folder'; path: string }[]> } | undefined;
  private readonly lastCommand = new Map<vscode.Terminal, TerminalCommand>();
  /** Commands running now, each with its output being read since it started. */
  private readonly running = new Map<vscode.TerminalShellExecution, { command: TerminalCommand; read: Promise<void> }>();

  constructor(
    private readonly post: (message: HostToWebview) => void,
    private readonly logger: Logger,
    /** The chat's folder (chatFolders.ts): paths are relative to it, the @ picker lists it. */
    private readonly chatFolder: () => string | undefined,
  ) {
    super();
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.postEditorContext()));
    this._register(vscode.window.onDidChangeTextEditorSelection(() => this.postEditorContext()));
    // A command's output can only be read from its start: read() after the end yields nothing.
    this._register(vscode.window.onDidStartTerminalShellExecution((event) => this.startCapture(event.execution)));
    this._register(vscode.window.onDidEndTerminalShellExecution((event) => void this.endCapture(event)));
    this._register(vscode.window.onDidCloseTerminal((terminal) => this.lastCommand.delete(terminal)));
    this._register(vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration(settingName('attachments.editorContext')) && this.postEditorContext()));
  }

  /** The active editor's file and selection (workspace-relative), for the composer's chips. */
  postEditorContext(): void {
    const editor = vscode.window.activeTextEditor;
    const file = editor && editor.document.uri.scheme === 'file' ? this.relative(editor.document.uri.fsPath) : undefined;
    const selection = editor && file && !editor.selection.isEmpty ? { path: file, fromLine: editor.selection.start.line + 1, toLine: editor.selection.end.line + (editor.selection.end.character === 0 ? 0 : 1) } : undefined;
    const root = this.root();
    const setting = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('attachments.editorContext');
    const autoAttach: EditorAutoAttach = setting === 'fileAndSelection' || setting === 'none' ? setting : 'selection';
    this.post({ type: 'editorContext', autoAttach, ...(root ? { root } : {}), ...(file ? { file } : {}), ...(selection && selection.toLine >= selection.fromLine ? { selection } : {}) });
  }

  private root(): string | undefined {
    return this.chatFolder();
  }

  private relative(file: string): string | undefined {
    const root = this.root();
    if (!root) return undefined;
    const relative = path.relative(root, file);
    return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
  }

  /** The @ picker's options for `query`: files and folders of the workspace, best matches first. */
  async options(query: string): Promise<AttachmentOption[]> {
    const root = this.root();
    if (!root) return [];
    if (!this.files || this.files.root !== root || Date.now() - this.files.at > FILE_LIST_TTL_MS) {
      this.files = { at: Date.now(), root, list: listWorkspace(root) };
    }
    const entries = await this.files.list;
    const matches = query.trim() === '' ? entries.slice(0, OPTIONS_SHOWN) : fuzzysort.go(query, entries, { key: 'path', limit: OPTIONS_SHOWN }).map((match) => match.obj);
    return Promise.all(
      matches.map(async (entry) => {
        const bytes = entry.kind === 'file' ? (await fsp.stat(path.join(root, entry.path)).catch(() => undefined))?.size : undefined;
        return { kind: entry.kind, path: entry.path, ...(bytes !== undefined ? { tokens: Math.ceil(bytes / CONTEXT_DEFAULTS.charsPerToken) } : {}) };
      }),
    );
  }

  /** What each request holds now; throws AttachmentError (with what to do) for one that holds nothing. */
  async gather(requests: readonly AttachmentRequest[]): Promise<AttachmentSpec[]> {
    const specs: AttachmentSpec[] = [];
    for (const request of requests) {
      if (request.kind === 'file' || request.kind === 'folder' || request.kind === 'image') specs.push(request);
      else if (request.kind === 'selection') specs.push(this.selection());
      else if (request.kind === 'problems') specs.push(problems(this.root()));
      else if (request.kind === 'terminal') specs.push(await this.terminal());
      else specs.push(await this.gitChanges());
    }
    return specs;
  }

  private selection(): AttachmentSpec {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) throw new AttachmentError(vscode.l10n.t('@selection: nothing is selected in the active editor; select some lines first'));
    const where = this.relative(editor.document.uri.fsPath) ?? editor.document.uri.fsPath;
    const from = editor.selection.start.line + 1;
    const to = editor.selection.end.line + 1;
    const lines = editor.document.getText(editor.selection).split('\n').map((line, index) => `${String(from + index).padStart(6)}\t${line}`);
    return { kind: 'selection', label: `${where}:${from}-${to}`, text: `${where}, lines ${from}-${to} (selected in the editor):\n${lines.join('\n')}` };
  }

  private async terminal(): Promise<AttachmentSpec> {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) throw new AttachmentError(vscode.l10n.t('@terminal: there is no open terminal'));
    const command = this.lastCommand.get(terminal);
    if (!command) {
      throw new AttachmentError(
        terminal.shellIntegration
          ? vscode.l10n.t('@terminal: no command has finished in "{0}" since Evergreen started; run it again, then attach', terminal.name)
          : vscode.l10n.t('@terminal: "{0}" has no shell integration, so its commands cannot be read; enable "{1}" and open a new terminal', terminal.name, 'terminal.integrated.shellIntegration.enabled'),
      );
    }
    const attached = await withRecoveredOutput(command, workbenchTerminalCopy, this.logger);
    return { kind: 'terminal', label: `terminal: ${screenText(command.commandLine).slice(0, 40)}`, text: terminalCommandText(attached) };
  }

  private async gitChanges(): Promise<AttachmentSpec> {
    const root = this.root();
    if (!root) throw new AttachmentError(vscode.l10n.t('@git-changes: no folder is open'));
    try {
      return { kind: 'git-changes', label: 'git changes', text: await workingTreeChanges(root) };
    } catch (error) {
      throw new AttachmentError(vscode.l10n.t('@git-changes: {0}', error instanceof GitChangesError ? error.message : String(error)));
    }
  }

  private startCapture(execution: vscode.TerminalShellExecution): void {
    const command: TerminalCommand = { commandLine: execution.commandLine.value, output: '', exitCode: undefined, droppedChars: 0 };
    const read = (async () => {
      for await (const chunk of execution.read()) {
        const room = TERMINAL_OUTPUT_MAX_CHARS - command.output.length;
        command.output += chunk.slice(0, Math.max(0, room));
        command.droppedChars += Math.max(0, chunk.length - room);
      }
    })().catch((error: unknown) => this.logger.error(`could not read the output of the terminal command "${command.commandLine.slice(0, 80)}"; what was read is kept`, error));
    this.running.set(execution, { command, read });
  }

  private async endCapture(event: vscode.TerminalShellExecutionEndEvent): Promise<void> {
    const capture = this.running.get(event.execution);
    this.running.delete(event.execution);
    // Evergreen started after the command did: its output is not known, only that it ran.
    const command = capture?.command ?? { commandLine: event.execution.commandLine.value, output: '', exitCode: undefined, droppedChars: 0, startedBeforeCapture: true };
    // The command line is final only now (the shell reports it as it learns it).
    command.commandLine = event.execution.commandLine.value || command.commandLine;
    command.exitCode = event.exitCode;
    await capture?.read;
    this.lastCommand.set(event.terminal, command);
  }
}

/** The workbench's record of the active terminal's last command, reached through the clipboard. */
const workbenchTerminalCopy: WorkbenchTerminalCopy = {
  readClipboard: async () => vscode.env.clipboard.readText(),
  writeClipboard: async (text) => vscode.env.clipboard.writeText(text),
  copyLastCommandOutput: async () => {
    await vscode.commands.executeCommand('workbench.action.terminal.copyLastCommandOutput');
  },
};

function problems(root: string | undefined): AttachmentSpec {
  const rows: { severity: number; text: string }[] = [];
  const names = ['error', 'warning', 'info', 'hint'];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    const where = root && uri.scheme === 'file' ? path.relative(root, uri.fsPath).split(path.sep).join('/') : uri.toString();
    for (const diagnostic of diagnostics) {
      const source = diagnostic.source ? ` (${diagnostic.source})` : '';
      rows.push({ severity: diagnostic.severity, text: `${where}:${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1} [${names[diagnostic.severity] ?? 'problem'}] ${diagnostic.message}${source}` });
    }
  }
  if (rows.length === 0) throw new AttachmentError(vscode.l10n.t('@problems: VS Code reports no problems in the workspace'));
  rows.sort((a, b) => a.severity - b.severity);
  const shown = rows.slice(0, PROBLEMS_MAX).map((row) => row.text);
  if (rows.length > PROBLEMS_MAX) shown.push(`[… ${rows.length - PROBLEMS_MAX} more problems not attached]`);
  return { kind: 'problems', label: `problems (${rows.length})`, text: shown.join('\n') };
}

/** Every file (honoring .gitignore) and the folders that hold them, workspace-relative. */
async function listWorkspace(root: string): Promise<{ kind: 'file' | 'folder'; path: string }[]> {
  const files = (await findFiles({ root, dir: root, pattern: '**/*' })).map((file) => path.relative(root, file).split(path.sep).join('/'));
  const folders = new Set<string>();
  for (const file of files) for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir);
  return [...[...folders].sort().map((folder) => ({ kind: 'folder' as const, path: folder })), ...files.map((file) => ({ kind: 'file' as const, path: file }))];
}
