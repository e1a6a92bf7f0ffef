/**
 * Token accounting: used tokens = the last request's counted prompt tokens (the anchor) + an
 * estimate of what changed since, at the tokens-per-character ratio that request measured. Pure
 * apart from a memo of each message's size (messages are never mutated, so the memo cannot go stale).
 */
import { messageChars } from '../model/content';
import type { MessageParam } from '../model/messages';
import type { TokenAnchor } from '../storage/transcript';

export class TokenAccounting {
  private readonly charCache = new WeakMap<MessageParam, number>();

  /** `baseChars`: the system prompt and tool definitions, sent with every request. */
  constructor(
    readonly baseChars: number,
    private readonly charsPerToken: number,
  ) {}

  charsOf(message: MessageParam): number {
    let chars = this.charCache.get(message);
    if (chars === undefined) {
      chars = messageChars(message, this.charsPerToken);
      this.charCache.set(message, chars);
    }
    return chars;
  }

  /** Characters of a request with these messages (base included). */
  liveChars(messages: readonly MessageParam[]): number {
    let chars = this.baseChars;
    for (const message of messages) chars += this.charsOf(message);
    return chars;
  }

  /** Tokens per character, calibrated on the anchor (the default ratio before any request was counted). */
  tokensPerChar(anchor: TokenAnchor | undefined): number {
    if (!anchor || anchor.mark.liveChars <= 0 || anchor.promptTokens <= 0) return 1 / this.charsPerToken;
    return anchor.promptTokens / anchor.mark.liveChars;
  }

  estimate(anchor: TokenAnchor | undefined, messages: readonly MessageParam[]): number {
    const chars = this.liveChars(messages);
    if (!anchor) return Math.ceil(chars / this.charsPerToken);
    return Math.max(0, Math.round(anchor.promptTokens + (chars - anchor.mark.liveChars) * this.tokensPerChar(anchor)));
  }

  /** The anchor of a prompt the API counted (`atMs` keeps the cache clock of the last real request). */
  anchorOf(messages: readonly MessageParam[], canonicalCount: number, promptTokens: number, atMs: number): TokenAnchor {
    return { mark: { canonicalCount, liveCount: messages.length, liveChars: this.liveChars(messages), pendingWaste: 0 }, promptTokens, atMs };
  }
}
