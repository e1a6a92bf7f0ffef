/** The pull request a run opens when asked: its branch onto the run's base, the answer as its body. */

export interface PullRequestOptions {
  apiUrl: string;
  repository: string;
  token: string;
  head: string;
  base: string;
  title: string;
  body: string;
  fetch?: typeof fetch;
}

/** Opens the pull request and returns its URL; throws with GitHub's own message when it refuses. */
export async function openPullRequest(options: PullRequestOptions): Promise<string> {
  const response = await (options.fetch ?? fetch)(`${options.apiUrl.replace(/\/+$/, '')}/repos/${options.repository}/pulls`, {
    method: 'POST',
    headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${options.token}`, 'content-type': 'application/json', 'x-github-api-version': '2022-11-28', 'user-agent': 'evergreen-action' },
    body: JSON.stringify({ title: options.title, head: options.head, base: options.base, body: options.body, maintainer_can_modify: true }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const url = typeof parsed === 'object' && parsed !== null ? (parsed as { html_url?: unknown }).html_url : undefined;
  if (response.ok && typeof url === 'string') return url;
  const message = typeof parsed === 'object' && parsed !== null ? (parsed as { message?: unknown }).message : undefined;
  throw new Error(`GitHub refused to open the pull request (HTTP ${response.status}${typeof message === 'string' ? `: ${message}` : ''}); the workflow needs "pull-requests: write" permission`);
}

/** A pull request's body: GitHub caps it at 65,536 characters. */
export function pullRequestBody(answer: string, runUrl: string | undefined, sessionId: string): string {
  const footer = `\n\n---\nOpened by Evergreen${runUrl ? ` in ${runUrl}` : ''}. Session \`${sessionId}\`: download the run's artifact and use **Evergreen: Open Run…** to continue the chat.`;
  const room = 60_000 - footer.length;
  return `${answer.length > room ? `${answer.slice(0, room)}\n… (cut)` : answer}${footer}`;
}
