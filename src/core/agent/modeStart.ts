/**
 * Which mode a session starts in, and on which model (issue 28): the mode asked for (`--mode`, the
 * panel's choice before a chat began), else the one its transcript holds, else agent; custom modes
 * read from the user's and the workspace's files each start. A mode's `model` is honoured when the
 * session's provider serves it (`chooseModel` over the models the provider knows, then the server's
 * own answer); otherwise the session keeps its model and says so.
 */
import * as os from 'node:os';
import type { DefinitionNotice, DefinitionNoticeKind } from '../definitions/types';
import { chooseModel } from '../definitions/modelChoice';
import { errorMessage, type Logger } from '../logger';
import type { ModelBackend } from '../model/backend';
import { ModelError } from '../model/errors';
import { knownModel } from '../model/models';
import { AGENT_MODE, findMode, loadModes, type ModeDefinition } from '../modes/modes';
import type { CommandSandbox } from '../shell/commandSandbox';
import { userText, type UserText } from '../texts/userText';
import type { SessionHandle } from '../storage/sessionStore';
import type { AgentEventListener } from './events';
import type { FoldedMode } from './fold';
import { SessionModes, UnknownModeError, type SessionModesOptions } from './modes';

/** What a front end decides about modes (absent: agent to start, the recorded mode on resume, no MCP tool in plan mode). */
export interface ModeSettings {
  /** The mode to start in (`--mode`, the panel's choice before a chat began); absent: the recorded one, else agent. */
  start?: string | undefined;
  /** `evergreen.plan.mcpTools` / `--plan-mcp-tool`: the MCP tools plan mode offers (`mcp__server__tool`, `mcp__server__*`). */
  planMcpTools?: readonly string[];
  /** Whose ~/.evergreen/modes load (tests pass their own); default the process's home. */
  home?: string;
}

export interface StartingMode<Connected> {
  modes: ModeDefinition[];
  mode: ModeDefinition;
  /** The transcript does not say this mode yet: the session records it as it starts. */
  recordStart: boolean;
  /** The mode the model was last told of. */
  told: string;
  /** The back end: the one connected first, or the one the mode's model needed. */
  connected: Connected;
  /** The model the front end configured (what a mode without a model runs on). */
  configuredModel: string;
  notices: ModeNotice[];
}

/** What the user is told about modes as a session starts. */
interface ModeNotice {
  level: 'warning' | 'info';
  message: UserText;
}

/** Loading problems a user should fix; the rest (a hidden duplicate, an untrusted workspace) are said as information. */
const WARNING_KINDS: ReadonlySet<DefinitionNoticeKind> = new Set(['unreadable', 'invalid-frontmatter', 'invalid-field', 'unknown-tool', 'not-utf8']);

export function modeNotice(notice: DefinitionNotice): ModeNotice {
  return { level: WARNING_KINDS.has(notice.kind) ? 'warning' : 'info', message: notice.message };
}

/** Whether a back end of `client`'s provider can be asked for `id`: the one running, or a model family the provider's table knows. */
export function servesModel(client: Pick<ModelBackend, 'provider' | 'model'>): (id: string) => boolean {
  return (id) => id === client.model || knownModel(client.provider, id);
}

export async function startingMode<Connected extends { client: ModelBackend }>(params: {
  settings: ModeSettings | undefined;
  workspaceRoot: string;
  trusted: boolean;
  folded: FoldedMode | undefined;
  connected: Connected;
  /** A back end for another model of the same provider (its model info fetched: a model the server does not know fails here). */
  connect: (model: string) => Promise<Connected>;
  logger: Logger;
}): Promise<StartingMode<Connected>> {
  const { settings, folded, logger } = params;
  const loaded = await loadModes({ workspaceRoot: params.workspaceRoot, workspaceTrusted: params.trusted, home: settings?.home ?? os.homedir() });
  const notices = loaded.notices.map(modeNotice);
  const recorded = folded?.current ?? AGENT_MODE;
  let mode: ModeDefinition | undefined;
  if (settings?.start !== undefined) {
    mode = findMode(loaded.modes, settings.start);
    if (!mode) throw new UnknownModeError(settings.start, loaded.modes.map((candidate) => candidate.name));
  } else {
    mode = findMode(loaded.modes, recorded);
    if (!mode) notices.push({ level: 'warning', message: userText('customization.modeGone', { mode: recorded }) });
  }
  mode ??= findMode(loaded.modes, AGENT_MODE)!;
  const configuredModel = params.connected.client.model;
  let connected = params.connected;
  const choice = chooseModel(mode.model, servesModel(connected.client));
  if (choice.model !== undefined && choice.model !== configuredModel) {
    try {
      connected = await params.connect(choice.model);
    } catch (error) {
      if (!(error instanceof ModelError) || error.kind === 'cancelled') throw error;
      logger.warn(`the ${mode.name} mode's model ${choice.model} could not be used: ${errorMessage(error)}`);
      notices.push({ level: 'warning', message: userText('customization.modeModelFailed', { mode: mode.name, model: choice.model, error: error.message, running: configuredModel }) });
    }
  } else if (choice.model === undefined && choice.tried.length > 0) {
    notices.push({ level: 'info', message: userText('customization.modeModelNotServed', { mode: mode.name, models: choice.tried.join(' or '), provider: connected.client.provider, running: configuredModel }) });
  }
  return { modes: loaded.modes, mode, recordStart: mode.name !== recorded, told: folded?.told ?? AGENT_MODE, connected, configuredModel, notices };
}

/** The session's modes: the one it starts in, one tool list for every mode, plan mode's shell only with a working sandbox. */
export function sessionModes(
  starting: StartingMode<{ client: ModelBackend }>,
  parts: {
    planMcpTools: readonly string[];
    tools: SessionModesOptions['tools'];
    sandbox: Pick<CommandSandbox, 'state'> | undefined;
    handle: Pick<SessionHandle, 'append'>;
    onEvent: AgentEventListener;
    client: ModelBackend;
    now: () => number;
  },
): SessionModes {
  return new SessionModes({
    modes: starting.modes,
    // A start in another mode than the transcript's is recorded once the session exists (switchTo 'start'); the model is told with the first message.
    current: starting.mode,
    told: starting.told,
    tools: parts.tools,
    toolOptions: { sandboxAvailable: parts.sandbox?.state.kind === 'on', planMcpTools: parts.planMcpTools },
    record: (entry) => parts.handle.append(entry),
    emit: parts.onEvent,
    now: parts.now,
    models: { running: parts.client.model, configured: starting.configuredModel, serves: servesModel(parts.client) },
  });
}
