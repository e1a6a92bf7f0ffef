/**
 * The chat panel. Receives typed messages from the host (src/protocol.ts), folds agent events into
 * the chat model and renders only the items that changed. No node, no vscode: browser code only.
 */
import { ERROR_ACTION_COMMANDS, visibleCommandLine, type ErrorAction, type GaugeState, type HostToWebview, type ViewState, type WebviewCommand, type WebviewReply, type WebviewRequester, type WebviewToHost } from '../protocol';
import { approvalRenderer } from './approvalView';
import { applyEvent, dismissNotice, emptyChat, lastUserItem, pushNotice, todoStatusText, todoSummary, toolCardName, toolStatusText, type ChatItem, type ChatModel } from './chatModel';
import { renderUserMessage } from './userMessageView';
import { gaugeView } from './gauge';
import { chartIcon } from './icons';
import { renderMarkdown, renderMarkdownBlocks } from './markdown';
import { outcomeText } from './subagents';
import { patchSubagentCard, renderSubagentCard, type SubagentViewDeps } from './subagentView';
import { ComposerAttachments } from './composerView';
import { renderMemoryCard } from './memoryCardView';
import { SlashPicker } from './slashPicker';
import { hasThinking, patchThinking, renderThinking } from './thinkingView';
import { HostRequests } from './hostRequests';
import { ModePickerView } from './modePickerView';
import { planCardDeps, renderPlanCard } from './planCardView';
import { renderWebCard, type WebCardDeps } from './webCardView';
import { renderHookLine, type HookViewDeps } from './hookView';
import { t } from './strings';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('evergreen-root')!;
const host = new HostRequests((message) => vscode.postMessage(message));
let chat: ChatModel = emptyChat();
let viewState: ViewState | undefined;
/** Text of a send the host has not started yet; restored to the input if the send fails. */
let pendingSend: string | undefined;
const rendered = new Map<string, { element: HTMLElement; rev: number }>();
/**
 * Index of the first chat item in the DOM. A restored chat renders at once only the newest items
 * that fill the view (fillView, once `filling`), then backfill() adds the older ones above in idle
 * slices: a 2,000-item history neither blocks the panel nor stays unsearchable (bench/webview.ts).
 */
let renderFrom = 0;
let filling = false;
/**
 * The newest items are always laid out; older ones get `eg-far` (content-visibility: auto in
 * chat.css), so the browser skips their layout and paint while they are off screen. Keeping the
 * tail laid out keeps "scroll to the bottom" exact: a skipped item's size is only an estimate.
 */
const TAIL_ITEMS = 40;
/** Longest stretch of one backfill slice: well under the 50 ms that makes a long task. */
const BACKFILL_SLICE_MS = 8;
/** Items fillView renders between two measurements of the height they take. */
const FILL_STEP = 4;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/** Asks the host; a request that fails shows its error, with its next steps, in the chat. */
const send: WebviewRequester = (type, request) =>
  host.request(type, request).then((reply) => {
    if (!reply.ok) showFailure(reply);
    return reply;
  });

function showFailure(reply: Extract<WebviewReply, { ok: false }>): void {
  pushNotice(chat, 'error', reply.error, undefined, reply.actions ?? []);
  scheduleRender();
}

function runCommand(command: WebviewCommand): void {
  void send('runCommand', { command });
}

// ---- layout -------------------------------------------------------------------------------
const header = el('header', 'eg-header');
// The gauge is a button (click, Enter or Space open the breakdown document); hovering or focusing
// it shows the breakdown popover, so the numbers are reachable without a mouse.
const gaugeWrap = el('div', 'eg-gauge-wrap');
const gauge = el('button', 'eg-gauge');
gauge.type = 'button';
gauge.setAttribute('aria-describedby', 'eg-gauge-popover');
const gaugeBar = el('div', 'eg-gauge-bar');
gaugeBar.setAttribute('role', 'meter');
gaugeBar.setAttribute('aria-label', t('gauge.meter'));
gaugeBar.setAttribute('aria-valuemin', '0');
gaugeBar.setAttribute('aria-valuemax', '100');
const gaugeUsed = el('div', 'eg-gauge-used');
const gaugeReserve = el('div', 'eg-gauge-reserve');
const gaugeFree = el('div', 'eg-gauge-free');
const gaugeThreshold = el('div', 'eg-gauge-threshold');
// used | free | reserved: the reserve is the window's end, which the reply needs.
gaugeBar.append(gaugeUsed, gaugeFree, gaugeReserve, gaugeThreshold);
const gaugeLabel = el('span', 'eg-gauge-label', t('gauge.empty'));
const gaugeSecondary = el('span', 'eg-gauge-secondary');
const gaugeText = el('span', 'eg-gauge-text');
// The space keeps the two lines two words apart for whatever reads the text (axe, a voice user's "click 200k").
gaugeText.append(gaugeLabel, ' ', gaugeSecondary);
gauge.append(gaugeBar, gaugeText);
gauge.addEventListener('click', () => runCommand('showContextBreakdown'));
const gaugePopover = el('div', 'eg-gauge-popover');
gaugePopover.id = 'eg-gauge-popover';
gaugePopover.setAttribute('role', 'tooltip');
gaugeWrap.append(gauge, gaugePopover);
const compactButton = el('button', 'eg-button eg-secondary', t('header.compact'));
compactButton.type = 'button';
compactButton.title = t('header.compactTitle');
compactButton.setAttribute('aria-label', t('header.compactAria'));
compactButton.addEventListener('click', () => runCommand('compactConversation'));
// The session's charts over time (the insights panel), beside the gauge that shows only now.
const insightsButton = el('button', 'eg-button eg-secondary eg-icon-button');
insightsButton.type = 'button';
insightsButton.title = t('header.insightsTitle');
insightsButton.setAttribute('aria-label', t('header.insightsAria'));
insightsButton.append(chartIcon());
insightsButton.addEventListener('click', () => runCommand('showSessionInsights'));
header.append(gaugeWrap, insightsButton, compactButton);

const transcript = el('main', 'eg-transcript');
// Not a live region itself: every streamed word would be read out. Finished replies, approvals
// and errors are announced once through the status region below.
transcript.setAttribute('role', 'log');
transcript.setAttribute('aria-live', 'off');
transcript.setAttribute('aria-label', t('transcript.label'));
const announcer = el('div', 'eg-sr-only');
announcer.setAttribute('role', 'status');
announcer.setAttribute('aria-live', 'polite');
function announce(text: string): void {
  announcer.textContent = text;
}
const welcome = el('section', 'eg-welcome');

const composer = el('form', 'eg-composer');
const input = el('textarea', 'eg-input');
input.placeholder = t('composer.placeholder');
input.rows = 3;
input.setAttribute('aria-label', t('composer.inputLabel'));
const sendButton = el('button', 'eg-button', t('composer.send'));
sendButton.type = 'submit';
const cancelButton = el('button', 'eg-button eg-secondary', t('composer.cancel'));
cancelButton.type = 'button';
cancelButton.addEventListener('click', () => runCommand('cancel'));
const buttons = el('div', 'eg-composer-buttons');
const modePicker = new ModePickerView(el, send, announce);
buttons.append(modePicker.element, cancelButton, sendButton);
const attachments = new ComposerAttachments(input, send, announce);
const commands = new SlashPicker(input, send, () => {
  attachments.refresh();
  vscode.setState({ draft: input.value });
});
composer.append(commands.element, attachments.picker, attachments.element, input, buttons);
// The task list (todo_write) above the composer: a <details>, so it is one Tab stop and opens
// with Enter or Space; each status is written out, never told by colour alone.
const todoPanel = el('details', 'eg-todos');
todoPanel.hidden = true;
const todoHeading = el('summary', 'eg-todos-summary');
const todoList = el('ol', 'eg-todos-list');
todoList.setAttribute('aria-label', t('todos.label'));
todoPanel.append(todoHeading, todoList);
let renderedTodos: ChatModel['todos'] | null = null;
root.append(header, transcript, todoPanel, composer, announcer);

// Links in model text never navigate the webview: the host decides what may open.
transcript.addEventListener('click', (event) => {
  const anchor = event.target instanceof Element ? event.target.closest('a') : null;
  if (!anchor) return;
  // Also keeps VS Code's own webview link handler (on the window) from opening it behind our back.
  event.preventDefault();
  event.stopPropagation();
  const href = anchor.getAttribute('href');
  if (href) void send('openLink', { href });
});

// Ctrl+Enter (Cmd+Enter) anywhere in the panel goes to the oldest approval still waiting: its first
// answer focused and in view, so the keyboard reaches it; a second key press answers.
document.addEventListener(
  'keydown',
  (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    const waiting = transcript.querySelector<HTMLButtonElement>('.eg-approval button.eg-button:not(:disabled)');
    if (!waiting) return;
    event.preventDefault();
    event.stopPropagation();
    waiting.scrollIntoView({ block: 'nearest' });
    waiting.focus();
  },
  true,
);

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
input.addEventListener('keydown', (event) => {
  if (commands.handleKey(event) || attachments.handleKey(event)) {
    event.preventDefault();
    return;
  }
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});

/** No key and none needed to be set: nothing can be sent yet (the welcome offers Set API Key). */
function needsApiKey(): boolean {
  return viewState !== undefined && !viewState.hasApiKey;
}

function submit(): void {
  const text = input.value.trim();
  if (!text || chat.busy || needsApiKey()) return;
  input.value = '';
  // Busy from the keypress, not from the host's turn_started: a quick second Enter is not lost.
  chat.busy = true;
  pendingSend = text;
  scheduleRender();
  const attached = attachments.take();
  void send('sendMessage', { text, ...(attached.length > 0 ? { attachments: attached } : {}) }).then((reply) => {
    if (!reply.ok && pendingSend !== undefined) giveBackSend(pendingSend);
  });
}

/** A send that failed before its turn started: its words and chips go back to the composer, nothing typed or attached is lost. */
function giveBackSend(text: string): void {
  chat.busy = false;
  if (!input.value) input.value = text;
  attachments.restore();
  pendingSend = undefined;
  vscode.setState({ draft: input.value });
  scheduleRender();
}

// ---- rendering ----------------------------------------------------------------------------
function renderWelcome(): void {
  welcome.replaceChildren();
  welcome.append(el('h2', undefined, t('welcome.title')), el('p', undefined, t('welcome.tagline')));
  if (viewState) welcome.append(el('p', 'eg-muted eg-model', modelLine(viewState)));
  if (viewState && !viewState.hasApiKey) {
    const button = el('button', 'eg-button', t('welcome.setApiKey'));
    button.addEventListener('click', () => runCommand('setApiKey'));
    // The active provider's key (evergreen.provider): Anthropic's, or OpenAI's.
    welcome.append(el('p', undefined, t('welcome.needsKey')), button);
  }
  if (viewState && !viewState.trusted) {
    welcome.append(el('p', 'eg-muted', t('welcome.untrusted')));
  }
}

function modelLine(state: ViewState): string {
  return t('welcome.model', state.model, state.providerLabel);
}

function renderGauge(state: GaugeState | undefined): void {
  const view = gaugeView(state);
  gaugeUsed.style.width = view.used;
  gaugeReserve.style.width = view.reserve;
  gaugeFree.style.width = view.free;
  gaugeThreshold.hidden = view.threshold === undefined;
  if (view.threshold !== undefined) gaugeThreshold.style.left = view.threshold;
  gaugeWrap.dataset.level = view.level;
  gaugeBar.setAttribute('aria-valuenow', String(view.ariaValueNow));
  gaugeBar.setAttribute('aria-valuetext', view.ariaValueText);
  gaugeLabel.textContent = view.label;
  gaugeSecondary.textContent = view.secondary;
  // Which model fills this window, and who serves it (the provider can change between sessions).
  gaugePopover.textContent = [view.tooltip, viewState ? modelLine(viewState) : ''].filter((line) => line !== '').join('\n');
  // The name holds what the button shows, its meter's name first (WCAG 2.5.3: a voice user says what they see).
  gauge.setAttribute('aria-label', t('gauge.ariaLabel', [view.label, view.secondary].filter((text) => text !== '').join(', ')));
}

function renderItem(item: ChatItem): HTMLElement {
  switch (item.kind) {
    case 'user':
      return renderUserMessage(item, el, send, item === lastUserItem(chat));
    case 'assistant': {
      const element = el('div', `eg-message eg-assistant${item.streaming ? ' eg-streaming' : ''}`);
      if (hasThinking(item)) element.append(renderThinking(item, el));
      const body = el('div', 'eg-markdown');
      if (item.streaming) renderMarkdownBlocks(body, item.text);
      else body.innerHTML = renderMarkdown(item.text); // Sanitized by renderMarkdown.
      element.append(body);
      return element;
    }
    case 'tool': {
      if (item.subagent) return renderSubagentCard(item, item.subagent, subagentDeps);
      if (item.card?.kind === 'memory') return renderMemoryCard(item, item.card, el, () => runCommand('openMemory'));
      const details = el('details', `eg-tool eg-tool-${item.status}`);
      details.open = item.status === 'awaiting-approval';
      const summary = el('summary', undefined);
      // The headline is the model's (a command, a path, a description): shown with its invisible characters visible, like the card.
      summary.append(el('span', 'eg-tool-name', visibleCommandLine(toolCardName(item.name, item.input))), el('span', 'eg-tool-arg', visibleCommandLine(item.headline)), el('span', 'eg-tool-status', toolStatusText(item)));
      details.append(summary);
      if (item.approval) details.append(renderApproval(item.key.slice('tool:'.length), item.approval));
      if (item.output) details.append(el('pre', 'eg-tool-output', item.output));
      return item.web ? renderWebCard(details, item, item.web, webCardDeps) : details;
    }
    case 'divider':
      return renderDivider(item);
    case 'note':
      return renderNote(item);
    case 'plan':
      return renderPlanCard(item, planDeps);
    case 'hook':
      return renderHookLine(item, hookDeps);
    case 'notice': {
      const element = el('div', `eg-notice eg-${item.level}`, item.text);
      if (item.hint) element.append(el('div', 'eg-hint', item.hint));
      element.append(...errorActions(item.actions));
      const dismiss = el('button', 'eg-notice-dismiss', '\u00d7');
      dismiss.type = 'button';
      dismiss.title = t('notice.dismiss');
      dismiss.setAttribute('aria-label', t('notice.dismissAria'));
      dismiss.addEventListener('click', () => {
        dismissNotice(chat, item.key);
        input.focus();
        scheduleRender();
      });
      element.prepend(dismiss);
      return element;
    }
  }
}

/** A tier note; a persisted result's gets a short "saved output" link instead of the file's long path. */
function renderNote(item: Extract<ChatItem, { kind: 'note' }>): HTMLElement {
  const element = el('div', 'eg-note', item.text);
  const saved = item.savedOutput;
  if (!saved) return element;
  const link = el('button', 'eg-link eg-saved-output', t('note.savedOutput'));
  link.type = 'button';
  // The full path stays reachable on hover; the host decides whether it may open.
  link.title = t('note.savedOutputTitle', saved.toolName, saved.file);
  link.setAttribute('aria-label', t('note.savedOutputAria', saved.toolName));
  link.addEventListener('click', () => void send('openSavedOutput', { file: saved.file }));
  element.append(' · ', link);
  return element;
}

/** A compaction boundary: its numbers, the summary on demand, the transcript at that point, and Undo on the newest. */
function renderDivider(item: Extract<ChatItem, { kind: 'divider' }>): HTMLElement {
  const element = el('div', `eg-divider${item.undone ? ' eg-undone' : ''}`);
  element.dataset.compactionIndex = String(item.compactionIndex);
  element.append(el('div', 'eg-divider-title', item.undone ? t('divider.undone', item.text) : item.text));
  const actions = el('div', 'eg-divider-actions');
  if (item.summary) {
    const details = el('details', 'eg-divider-details');
    details.append(el('summary', undefined, t('divider.summary')), el('pre', 'eg-divider-summary', item.summary));
    actions.append(details);
  }
  const transcript = el('button', 'eg-link', t('divider.transcript'));
  transcript.title = t('divider.transcriptTitle');
  transcript.addEventListener('click', () => void send('openTranscriptAt', { compactionIndex: item.compactionIndex }));
  actions.append(transcript);
  if (item.undoable) {
    const undo = el('button', 'eg-button eg-secondary eg-undo', t('divider.undo'));
    undo.title = t('divider.undoTitle');
    undo.addEventListener('click', () => runCommand('undoLastCompaction'));
    actions.append(undo);
  }
  element.append(actions);
  return element;
}

// One per panel: which cards the user expanded survives their re-renders.
const renderApproval = approvalRenderer({
  el,
  decide: (toolUseId, approved, always) => {
    void send('approvalDecision', { toolUseId, approved, ...(always ? { always: true } : {}) });
    // The card's buttons are gone once it is answered: the focus goes back to the message box, not to the page.
    input.focus();
  },
});
const subagentDeps: SubagentViewDeps = { el, renderApproval, openTranscript: (childId) => void send('openSubagentTranscript', { childId }) };
// A decision starts a turn, like a sent message: busy at once, settled when the turn ends.
const planDeps = planCardDeps(el, send, (busy) => void ((chat.busy = busy), scheduleRender()));
const webCardDeps: WebCardDeps = { el, openSavedOutput: (file) => void send('openSavedOutput', { file }) };
const hookDeps: HookViewDeps = { el, openSavedOutput: (file) => void send('openSavedOutput', { file }) };

function errorActions(actions: readonly ErrorAction[]): HTMLElement[] {
  return actions.map((action) => {
    // The core chooses an error's next steps; the panel only turns them into buttons.
    const { command } = ERROR_ACTION_COMMANDS[action];
    const button = el('button', 'eg-button eg-secondary', t(`action.${action}`));
    button.addEventListener('click', () => runCommand(command));
    return button;
  });
}

let renderScheduled = false;
function scheduleRender(): void {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => {
    renderScheduled = false;
    render();
  });
}

function render(): void {
  const atBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
  if (chat.items.length === 0) {
    renderWelcome();
    transcript.replaceChildren(welcome);
    rendered.clear();
  } else {
    if (welcome.isConnected) welcome.remove();
    renderFrom = Math.min(renderFrom, chat.items.length);
    if (filling) fillView();
    const keys = new Set(chat.items.map((item) => item.key));
    for (const [key, entry] of rendered) {
      if (!keys.has(key)) {
        entry.element.remove();
        rendered.delete(key);
      }
    }
    let previous: HTMLElement | undefined;
    const farBefore = chat.items.length - TAIL_ITEMS;
    for (let index = renderFrom; index < chat.items.length; index++) {
      const item = chat.items[index]!;
      const existing = rendered.get(item.key);
      let element = existing?.element;
      if (existing && existing.rev !== item.rev && (updateStreaming(existing.element, item) || patchSubagentCard(existing.element, item))) {
        existing.rev = item.rev;
      } else if (!existing || existing.rev !== item.rev) {
        const fresh = renderItem(item);
        // Keep a tool card open if the user opened it.
        if (existing?.element instanceof HTMLDetailsElement && fresh instanceof HTMLDetailsElement && existing.element.open) fresh.open = true;
        existing?.element.replaceWith(fresh);
        element = fresh;
        rendered.set(item.key, { element, rev: item.rev });
      }
      // Insert new elements and fix the order of moved ones; untouched elements are left alone.
      if (element && (element.parentElement !== transcript || element.previousElementSibling !== (previous ?? null))) {
        if (previous) previous.after(element);
        else transcript.prepend(element);
      }
      element?.classList.toggle('eg-far', index < farBefore);
      previous = element;
    }
  }
  renderTodos();
  sendButton.disabled = chat.busy || needsApiKey();
  sendButton.title = needsApiKey() ? t('composer.needsKey') : '';
  // An empty chat has nothing to compact.
  compactButton.disabled = chat.items.length === 0 || needsApiKey();
  cancelButton.hidden = !chat.busy;
  modePicker.sync(chat.busy, chat.mode);
  root.dataset.status = chat.busy ? 'busy' : 'idle';
  if (atBottom) transcript.scrollTop = transcript.scrollHeight;
  if (renderFrom > 0) scheduleBackfill();
}

/** After a new state: the newest items, bottom up, until twice the view's height (a layout per step) or the whole tail. */
function fillView(): void {
  filling = false;
  const tailStart = Math.max(0, chat.items.length - TAIL_ITEMS);
  while (renderFrom > tailStart) {
    for (let step = 0; step < FILL_STEP && renderFrom > tailStart; step++) {
      const item = chat.items[--renderFrom]!;
      const element = renderItem(item);
      rendered.set(item.key, { element, rev: item.rev });
      transcript.prepend(element);
    }
    if (transcript.scrollHeight >= 2 * transcript.clientHeight) return;
  }
}

/** The list is rebuilt only when a `todos` event replaced it (a new object each time, also after a new state). */
function renderTodos(): void {
  const todos = chat.todos;
  if (todos === renderedTodos) return;
  renderedTodos = todos;
  todoPanel.hidden = !todos || todos.items.length === 0;
  if (!todos || todos.items.length === 0) return;
  // The summary's text is what a screen reader hears, with the expanded or collapsed state <details> gives it.
  todoHeading.textContent = todoSummary(todos.items);
  todoList.replaceChildren(
    ...todos.items.map((item) => {
      const row = el('li', `eg-todo eg-todo-${item.status.replace('_', '-')}`);
      row.append(el('span', 'eg-todo-status', todoStatusText(item.status)), el('span', 'eg-todo-text', item.text));
      if (item.status === 'in_progress') row.setAttribute('aria-current', 'step');
      return row;
    }),
  );
}

/**
 * A reply still streaming is updated in place, its markdown block by block (renderMarkdownBlocks)
 * and its thinking by what was added (thinkingView.ts), instead of being rebuilt every frame.
 * False when the item needs a fresh element (it finished).
 */
function updateStreaming(element: HTMLElement, item: ChatItem): boolean {
  if (item.kind !== 'assistant' || !item.streaming || !element.classList.contains('eg-streaming')) return false;
  const body = element.querySelector<HTMLElement>(':scope > .eg-markdown');
  if (!body || !patchThinking(element, item, el)) return false;
  renderMarkdownBlocks(body, item.text);
  return true;
}

let backfillScheduled = false;
function scheduleBackfill(): void {
  if (backfillScheduled) return;
  backfillScheduled = true;
  requestIdleCallback(backfill, { timeout: 200 });
}

/** Renders older items above the rendered ones, newest first, for at most one slice. */
function backfill(): void {
  backfillScheduled = false;
  // After a new state the tail is rendered first (render() scrolls to it, then schedules this).
  if (renderFrom === 0 || rendered.size === 0) return;
  const fragment = document.createDocumentFragment();
  const started = performance.now();
  while (renderFrom > 0 && performance.now() - started < BACKFILL_SLICE_MS) {
    const item = chat.items[--renderFrom]!;
    const element = renderItem(item);
    // The rest of the tail (fillView stopped when the view was full) is laid out; older items are far.
    element.classList.toggle('eg-far', renderFrom < chat.items.length - TAIL_ITEMS);
    rendered.set(item.key, { element, rev: item.rev });
    fragment.prepend(element);
  }
  // Scroll anchoring (overflow-anchor) keeps what the user is looking at in place.
  transcript.prepend(fragment);
  if (renderFrom > 0) scheduleBackfill();
}

// ---- messages from the host -----------------------------------------------------------------
window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'state':
      viewState = message.state;
      chat = emptyChat(chat.dismissed);
      for (const agentEvent of message.state.history) applyEvent(chat, agentEvent);
      renderFrom = chat.items.length;
      filling = true;
      chat.busy = message.state.status === 'busy';
      modePicker.update(message.state.modes);
      renderGauge(message.state.gauge);
      transcript.replaceChildren();
      rendered.clear();
      break;
    case 'agentEvent':
      if (message.event.type === 'turn_started') pendingSend = undefined;
      if (message.event.type === 'turn_finished') announce(message.event.stopReason === 'cancelled' ? t('announce.cancelled') : t('announce.finished'));
      if (message.event.type === 'approval_needed') announce(t('announce.approval'));
      if (message.event.type === 'error') announce(t('announce.error', message.event.message));
      if (message.event.type === 'subagent_finished') announce(t('announce.subagent', outcomeText(message.event.status)));
      if (message.event.type === 'plan_proposed') announce(t('announce.plan'));
      applyEvent(chat, message.event);
      break;
    case 'gauge':
      renderGauge(message.gauge);
      break;
    case 'notice':
      pushNotice(chat, message.level, message.message);
      break;
    case 'composerText':
      input.value = message.text;
      input.focus();
      attachments.refresh();
      break;
    case 'focusInput':
      input.focus();
      // Typed as if by the user, so "@" opens the picker as the keyboard would.
      if (message.insert) {
        input.setRangeText(message.insert, input.selectionStart, input.selectionEnd, 'end');
        input.dispatchEvent(new Event('input'));
      }
      break;
    case 'editorContext':
      attachments.onEditorContext(message);
      break;
    case 'reply':
      host.settle(message);
      break;
  }
  vscode.setState({ draft: input.value });
  scheduleRender();
});

const saved = vscode.getState() as { draft?: unknown } | undefined;
if (typeof saved?.draft === 'string') input.value = saved.draft;
input.addEventListener('input', () => vscode.setState({ draft: input.value }));
render();
void send('ready', {});
