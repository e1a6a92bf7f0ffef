/**
 * File references in model text ("src/app.ts:4", "`lib/x.py:10-20`", "a.go:3:7") as links the host
 * opens at that line (extension/links.ts: workspace files only). A markdown-it plugin, pure, so it
 * is tested in node. Only a path with an extension and a line number counts: a bare word with a dot
 * ("e.g.", "v1.2") is not a reference, and text already in a link is left alone.
 */
import type MarkdownIt from 'markdown-it';
import { t } from './strings';

type StateCore = Parameters<MarkdownIt['core']['ruler']['push']>[1] extends (state: infer S) => unknown ? S : never;
type Token = StateCore['tokens'][number];

/** A path (folders, a name with an extension) and a line; optionally a range's end or a column. */
const REFERENCE = /(?<![\w/.\\@:-])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][\w]*):(\d+)(?:[-:]\d+)?(?![\w/])/g;

/** The link a reference opens: its path and first line, the form the host reads ("a.ts:12"). */
export function fileReferenceHref(path: string, line: string): string {
  return `${path}:${line}`;
}

export function fileReferences(md: MarkdownIt): void {
  md.core.ruler.push('evergreen_file_references', (state) => {
    for (const block of state.tokens) {
      if (block.type !== 'inline' || !block.children) continue;
      let insideLink = 0;
      const out: Token[] = [];
      for (const token of block.children) {
        if (token.type === 'link_open') insideLink++;
        if (token.type === 'link_close') insideLink--;
        if (insideLink > 0 || (token.type !== 'text' && token.type !== 'code_inline')) {
          out.push(token);
          continue;
        }
        out.push(...linked(state, token));
      }
      block.children = out;
    }
  });
}

/** A text or inline-code token split around its references, each wrapped in a link. */
function linked(state: StateCore, token: Token): Token[] {
  const text = token.content;
  const parts: Token[] = [];
  let at = 0;
  for (const match of text.matchAll(REFERENCE)) {
    const start = match.index;
    if (start > at) parts.push(piece(state, token, text.slice(at, start)));
    const open = new state.Token('link_open', 'a', 1);
    open.attrs = [['href', fileReferenceHref(match[1]!, match[2]!)], ['title', t('fileReference.title', match[1]!, match[2]!)]];
    const close = new state.Token('link_close', 'a', -1);
    parts.push(open, piece(state, token, match[0]), close);
    at = start + match[0].length;
  }
  if (at === 0) return [token];
  if (at < text.length) parts.push(piece(state, token, text.slice(at)));
  return parts;
}

function piece(state: StateCore, like: Token, content: string): Token {
  const token = new state.Token(like.type, like.tag, 0);
  token.content = content;
  token.markup = like.markup;
  return token;
}
