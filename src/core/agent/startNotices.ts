// What a session's start tells the user once, through its (redacted) events and log: how thinking
// was resolved, the sandbox off or unavailable, web search that cannot run here, MCP tools behind
// mcp_search, instruction files, skills and memory, MCP problems.
import type { McpConfigProblem } from '../mcp/config';
import { settingRef, userTextForLog, type UserText } from '../texts/userText';
import { userText } from '../texts/userText';
import type { McpManager } from '../mcp/manager';
import type { Logger } from '../logger';
import type { ThinkingNotice } from '../model/thinking';
import { sandboxNotice, type CommandSandbox } from '../shell/commandSandbox';
import type { CustomizationNotice } from './customization';
import type { AgentEventListener } from './events';

/** The MCP servers' tools as the session offers them (directly, or behind mcp_search and mcp_call). */
export type McpOffer = ReturnType<McpManager['tools']>;

/** What the front end found in the MCP configuration and tells the user (agent/factory.ts, `McpSettings`). */
interface McpNoticeSettings {
  problems: readonly McpConfigProblem[];
  notices: readonly UserText[];
}

export function announceStart(
  { logger, onEvent }: { logger: Logger; onEvent: AgentEventListener },
  what: {
    thinking: readonly ThinkingNotice[];
    sandbox: CommandSandbox | undefined;
    /** Web search is on, but this back end has none of its own and no SearXNG instance is given. */
    webSearchMissing: boolean;
    mcp: McpManager | undefined;
    mcpTools: McpOffer | undefined;
    mcpSettings: McpNoticeSettings | undefined;
    mcpDeferShare: number;
    /** The instruction files read, and what was wrong with them. */
    promptNotices: readonly { level: 'warning' | 'info'; message: UserText }[];
    /** Skills that could not be used as written, memory that could not be listed. */
    customization: readonly CustomizationNotice[];
  },
): void {
  const { sandbox, mcp, mcpTools } = what;
  for (const notice of what.thinking) {
    if (notice.level === 'warning') logger.warn(userTextForLog(notice.message));
    onEvent({ type: 'thinking_notice', ...notice });
  }
  const notice = sandbox && sandboxNotice(sandbox.state);
  if (notice) {
    logger.warn(userTextForLog(notice.message));
    onEvent({ type: 'sandbox_notice', ...notice });
  }
  if (what.webSearchMissing) {
    const message = userText('start.webSearchMissing', { setting: settingRef('web.searxngUrl') });
    logger.warn(userTextForLog(message));
    onEvent({ type: 'web_notice', level: 'warning', message });
  }
  if (mcpTools?.deferred) {
    const tools = mcp?.list().reduce((sum, server) => sum + server.tools, 0) ?? 0;
    onEvent({ type: 'mcp_notice', level: 'info', message: userText('start.mcpToolsDeferred', { tools, tokens: mcpTools.definitionTokens, share: Math.round(what.mcpDeferShare * 100) }) });
  }
  for (const notice of what.promptNotices) {
    if (notice.level === 'warning') logger.warn(userTextForLog(notice.message));
    onEvent({ type: 'instructions_notice', ...notice });
  }
  for (const notice of what.customization) {
    if (notice.level === 'warning') logger.warn(userTextForLog(notice.message));
    onEvent({ type: 'customization_notice', ...notice });
  }
  for (const message of mcpNotices(what.mcpSettings, mcp)) {
    logger.warn(userTextForLog(message));
    onEvent({ type: 'mcp_notice', level: 'warning', message });
  }
}

/** One line per thing the user should know about the session's MCP servers, each with what to do. */
function mcpNotices(settings: McpNoticeSettings | undefined, manager: McpManager | undefined): UserText[] {
  const notices = [...(settings?.notices ?? [])];
  for (const { where, message } of settings?.problems ?? []) notices.push(userText('start.mcpConfigProblem', { where, problem: message }));
  notices.push(...(manager?.notices() ?? []));
  notices.push(...(manager?.failures() ?? []));
  return notices;
}
