/**
 * A definition's `model` as a model id. Files name models the way their tool does: Claude Code by
 * id or alias (`claude-3-5-haiku-20241022`, `sonnet`, `inherit`), Copilot by display name and maybe
 * vendor (`Claude Sonnet 4.5 (copilot)`, `GPT-4o`), as one or a list to try in order. Each name is
 * normalized to the id form (`claude-sonnet-4-5`, `gpt-4o`) and the first one the caller can serve
 * is chosen; none: the session's model stays, and the caller says so.
 */

/** `inherit` (Claude Code): keep the session's model. */
const INHERIT = 'inherit';

/** A model name as an id: a display name lowercased and hyphenated, a vendor suffix dropped, Claude's version dots as hyphens. */
export function modelIdOf(name: string): string {
  const id = name
    .trim()
    .replace(/\s*\([^)]*\)\s*$/, '')
    .toLowerCase()
    .replace(/\s+/g, '-');
  return id.startsWith('claude') ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id;
}

/**
 * The first of `names` that `available` accepts (as given or normalized); `tried` lists what was
 * asked for, for the notice when nothing fits. `inherit` alone, or no names, chooses nothing quietly.
 */
export function chooseModel(names: readonly string[] | undefined, available: (id: string) => boolean): { model?: string; tried: string[] } {
  const tried = (names ?? []).filter((name) => name.trim().toLowerCase() !== INHERIT);
  for (const name of tried) {
    for (const candidate of [name.trim(), modelIdOf(name)]) if (available(candidate)) return { model: candidate, tried };
  }
  return { tried };
}
