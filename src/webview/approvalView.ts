/**
 * The approval box of a tool card (and of a subagent's approvals): the command or diff to approve,
 * the warnings that go with it, and Run/Apply and Decline. Browser code; main.ts passes in the
 * helpers it shares, so this module has no side effects.
 */
import { commandPreview, commandSize, commandView, hiddenText, MODEL_DESCRIPTION_LABEL, NEWLINE_MARKER, visibleDescription } from '../protocol';
import type { ChatItem } from './chatModel';
import { t } from './strings';

type Approval = Extract<ChatItem, { kind: 'tool' }>['approval'] & object;

export interface ApprovalViewDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** Sends the user's answer for this tool use to the host; `always`: a web fetch's host is allowed for this workspace. */
  decide(toolUseId: string, approved: boolean, always?: boolean): void;
}

/** The panel's renderApproval; the cards whose whole command the user asked to see stay expanded across re-renders. */
export function approvalRenderer(deps: ApprovalViewDeps): (toolUseId: string, approval: Approval) => HTMLElement {
  const expandedCommands = new Set<string>();
  return (toolUseId, approval) => renderApproval(toolUseId, approval, expandedCommands, deps);
}

function renderApproval(toolUseId: string, approval: Approval, expandedCommands: Set<string>, deps: ApprovalViewDeps): HTMLElement {
  const { el } = deps;
  const box = el('div', 'eg-approval');
  const request = approval.request;
  const outside = request.kind === 'shell' && request.outsideReason !== undefined;
  // An MCP call's arguments are shown like a command: whole, line by line, before it can be approved.
  const view = request.kind === 'shell' ? commandView(request.command) : request.kind === 'mcp' ? commandView(request.arguments) : request.kind === 'hook' ? commandView(request.input) : undefined;
  const title = el('div', 'eg-approval-title', approvalTitle(request, outside));
  if (view) title.append(' ', el('span', 'eg-command-size', `(${commandSize(view)})`));
  box.append(title);
  // Leaving the sandbox is the one approval that hands over the user's full permissions: say so, with the model's reason labelled as its words.
  if (request.kind === 'shell' && request.outsideReason !== undefined) {
    box.append(el('div', 'eg-warning', t('approval.outsideWarning')));
    box.append(el('div', 'eg-muted', t('approval.outsideReason', visibleDescription(request.outsideReason))));
  }
  if (request.kind === 'mcp') {
    box.append(el('div', 'eg-muted', t('approval.mcpArguments')));
    if (request.serverHints?.length) box.append(el('div', 'eg-muted', t('approval.mcpHints', request.serverHints.map(visibleDescription).join('; '))));
  }
  // A hook asks for the user's own answer: its reasons are its words, the input below is what runs.
  if (request.kind === 'hook') {
    box.append(el('div', 'eg-muted', request.reasons.length > 0 ? t('approval.hookAsksBecause', request.reasons.map(visibleDescription).join('; ')) : t('approval.hookAsks')));
    box.append(el('div', 'eg-muted', t('approval.hookInput')));
  }
  // What a sandboxed command wrote that would run outside it: each path with why, and the risky lines.
  if (request.kind === 'sandbox_changes') box.append(sandboxChangesView(el, request));
  if (request.kind === 'web') return webApproval(toolUseId, approval, request, box, expandedCommands, deps);
  // Asked even with writes on auto: say why, so the user reads this diff with care.
  if (request.kind === 'write' && request.protectedReason) box.append(el('div', 'eg-warning', t('approval.protectedFile', request.protectedReason)));
  // The model chose these words; they are no summary of the command, and say so.
  if (request.kind === 'shell' && request.description !== undefined) {
    const said = el('div', 'eg-model-words');
    said.append(el('span', 'eg-model-words-label', `${MODEL_DESCRIPTION_LABEL} `), el('q', undefined, visibleDescription(request.description)));
    said.title = t('approval.modelDescription');
    box.append(said);
  }
  const block = el('pre', request.kind === 'write' ? 'eg-diff' : 'eg-command');
  if (request.kind === 'write') fillDiff(el, block, request.diff);
  if (request.kind === 'sandbox_changes') fillCommand(el, block, commandView(request.command).lines, commandView(request.command).lines.length);
  box.append(block);
  // A long command shows its head and a "+N more lines" button; Run waits until all of it was shown.
  const preview = view ? commandPreview(view) : undefined;
  const cut = preview !== undefined && (preview.hiddenLines > 0 || preview.hiddenChars > 0) && !expandedCommands.has(toolUseId);
  let more: HTMLButtonElement | undefined;
  if (view && preview) {
    fillCommand(el, block, cut ? preview.shown : view.lines, view.lines.length);
    if (cut) {
      more = el('button', 'eg-command-more', t('approval.moreCommand', hiddenText(preview)));
      box.append(more);
    }
  }
  if (approval.decided === undefined) {
    const verb = request.kind === 'shell' || request.kind === 'hook' ? t('approval.run') : request.kind === 'mcp' ? t('approval.call') : request.kind === 'sandbox_changes' ? t('approval.applyThem') : t('approval.apply');
    const approve = el('button', 'eg-button', verb);
    const deny = el('button', 'eg-button eg-secondary', t('approval.decline'));
    // The visible labels are short; a screen reader hears what they act on.
    const subject =
      request.kind === 'mcp'
        ? t('approval.subjectMcp', request.tool, request.server)
        : request.kind === 'hook'
          ? t('approval.subjectHook', request.tool)
        : request.kind === 'sandbox_changes'
          ? t('approval.subjectSandbox', request.changes.length)
          : view
            ? t('approval.subjectCommand', (view.lines[0] ?? '').slice(0, 80), commandSize(view))
            : t('approval.subjectWrite', request.kind === 'write' ? request.path : '');
    approve.setAttribute('aria-label', t('approval.verbAria', verb, subject));
    deny.setAttribute('aria-label', t('approval.declineAria', subject));
    if (cut && view && more) {
      approve.disabled = true;
      approve.title = t('approval.showCommandFirst');
      more.addEventListener('click', () => {
        expandedCommands.add(toolUseId);
        fillCommand(el, block, view.lines, view.lines.length);
        more?.remove();
        approve.disabled = false;
        approve.removeAttribute('title');
        // Focus goes to the command, not to Run: a second Enter must not approve what was just revealed.
        block.tabIndex = -1;
        block.focus();
      });
    }
    approve.addEventListener('click', () => deps.decide(toolUseId, true));
    deny.addEventListener('click', () => deps.decide(toolUseId, false));
    box.append(approve, deny);
  } else {
    more?.addEventListener('click', () => {
      expandedCommands.add(toolUseId);
      fillCommand(el, block, view?.lines ?? [], view?.lines.length ?? 0);
      more?.remove();
    });
    box.append(el('div', 'eg-muted', approval.decided ? t('approval.approved') : t('approval.declined')));
  }
  return box;
}

function approvalTitle(request: Approval['request'], outside: boolean): string {
  switch (request.kind) {
    case 'shell':
      return outside ? t('approval.titleShellOutside') : t('approval.titleShell');
    case 'mcp':
      return t('approval.titleMcp', request.tool, request.server);
    case 'sandbox_changes':
      return t('approval.titleSandboxChanges');
    case 'write':
      return request.isNew ? t('approval.titleCreate', request.path) : t('approval.titleChange', request.path);
    case 'web':
      return t('approval.titleWeb', visibleDescription(request.host));
    case 'hook':
      return t('approval.titleHook', visibleDescription(request.tool));
  }
}

/**
 * A web fetch's card: the whole URL it will request (the model chose it, and a URL can carry the
 * workspace's content out in its path or query) with its host set apart, where a redirect came
 * from, and three answers. A URL too long to show at once is cut like a long command, and neither
 * Allow answer works until all of it was shown.
 */
function webApproval(toolUseId: string, approval: Approval, request: Extract<Approval['request'], { kind: 'web' }>, box: HTMLElement, expandedUrls: Set<string>, deps: ApprovalViewDeps): HTMLElement {
  const { el } = deps;
  const host = visibleDescription(request.host);
  const view = commandView(request.url);
  const preview = commandPreview(view);
  const cut = preview.hiddenChars > 0 && !expandedUrls.has(toolUseId);
  box.append(el('div', 'eg-muted', t('approval.webUrl')));
  const block = el('pre', 'eg-command eg-web-url');
  block.setAttribute('aria-label', t('approval.webUrlAria', commandSize(view)));
  fillUrl(el, block, cut ? (preview.shown[0] ?? '') : (view.lines[0] ?? ''), request.url);
  box.append(block);
  if (request.redirectedFrom !== undefined) {
    box.append(el('div', 'eg-muted', t('approval.webRedirect')));
    const from = commandView(request.redirectedFrom);
    const fromPreview = commandPreview(from);
    box.append(el('pre', 'eg-command eg-web-url', `${fromPreview.shown[0] ?? ''}${fromPreview.hiddenChars > 0 ? ` … (${hiddenText(fromPreview)})` : ''}`));
  }
  if (approval.decided !== undefined) {
    box.append(el('div', 'eg-muted', approval.decided ? (approval.always ? t('approval.webAllowedAlways', host) : t('approval.webAllowedOnce')) : t('approval.declined')));
    return box;
  }
  const once = el('button', 'eg-button', t('approval.webOnce'));
  const always = el('button', 'eg-button eg-secondary', t('approval.webAlways', host));
  const deny = el('button', 'eg-button eg-secondary', t('approval.decline'));
  once.setAttribute('aria-label', t('approval.webOnceAria', host));
  always.setAttribute('aria-label', t('approval.webAlwaysAria', host));
  deny.setAttribute('aria-label', t('approval.webDeclineAria', host));
  once.addEventListener('click', () => deps.decide(toolUseId, true));
  always.addEventListener('click', () => deps.decide(toolUseId, true, true));
  deny.addEventListener('click', () => deps.decide(toolUseId, false));
  if (cut) {
    const more = el('button', 'eg-command-more', `${hiddenText(preview)} not shown: show the whole URL`);
    for (const allow of [once, always]) {
      allow.disabled = true;
      allow.title = t('approval.showUrlFirst');
    }
    more.addEventListener('click', () => {
      expandedUrls.add(toolUseId);
      fillUrl(el, block, view.lines[0] ?? '', request.url);
      more.remove();
      for (const allow of [once, always]) {
        allow.disabled = false;
        allow.removeAttribute('title');
      }
      // Focus goes to the URL, not to Allow: a second Enter must not allow what was just revealed.
      block.tabIndex = -1;
      block.focus();
    });
    box.append(more);
  }
  box.append(once, always, deny);
  return box;
}

/** The URL as shown (made visible, maybe cut), its host (and port) in bold: where the request really goes. */
function fillUrl(el: ApprovalViewDeps['el'], block: HTMLElement, shown: string, url: string): void {
  block.replaceChildren();
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    host = '';
  }
  const start = shown.indexOf('//') + 2;
  if (host === '' || start < 2 || shown.slice(start, start + host.length) !== host) {
    block.append(shown);
    return;
  }
  block.append(shown.slice(0, start), el('strong', 'eg-web-host', host), shown.slice(start + host.length));
}

/** The held paths, each with why and what exactly (untrusted text, shown with invisible characters made visible). */
function sandboxChangesView(el: ApprovalViewDeps['el'], request: Extract<Approval['request'], { kind: 'sandbox_changes' }>): HTMLElement {
  const list = el('ul', 'eg-held-changes');
  for (const change of request.changes) {
    const item = el('li');
    item.append(el('code', undefined, visibleDescription(change.path)), el('span', undefined, ` — ${change.reason}`));
    if (change.detail !== undefined) item.append(el('pre', 'eg-command', change.detail.split('\n').map(visibleDescription).join('\n')));
    list.append(item);
  }
  const section = el('div');
  section.append(
    el('div', 'eg-warning', t('approval.sandboxWarning')),
    list,
    el('div', 'eg-muted', t('approval.sandboxWritten')),
  );
  return section;
}

/**
 * A unified diff as VS Code's diff editor colours it: added and removed lines on the theme's
 * inserted and removed backgrounds, hunk headers muted. The patch header ("Index:", "====", "---",
 * "+++") says nothing the card's title does not, and is left out.
 */
function fillDiff(el: ApprovalViewDeps['el'], block: HTMLElement, diff: string): void {
  const lines = diff.replace(/\n$/, '').split('\n');
  let body = 0;
  while (body < lines.length && !lines[body]!.startsWith('@@') && /^(Index:|={3,}|--- |\+\+\+ |diff |new file|deleted file)/.test(lines[body]!)) body++;
  for (const line of lines.slice(body)) {
    const kind = line.startsWith('+') ? 'eg-diff-add' : line.startsWith('-') ? 'eg-diff-del' : line.startsWith('@@') ? 'eg-diff-hunk' : 'eg-diff-same';
    block.append(el('span', `eg-diff-line ${kind}`, line));
  }
}

/** The command's lines, each real newline shown as a marker at its line's end. */
function fillCommand(el: ApprovalViewDeps['el'], block: HTMLElement, lines: readonly string[], total: number): void {
  block.replaceChildren();
  lines.forEach((text, index) => {
    block.append(text);
    if (index < total - 1) block.append(el('span', 'eg-newline', ` ${NEWLINE_MARKER}`), '\n');
  });
}
