/**
 * One definition per name: the first in precedence order wins (sources.ts gives the order), and
 * every one it hides is reported, so a user who wonders why their file does nothing finds out.
 */
import { notice, type DefinitionNotice, type DefinitionOrigin } from './types';

export interface Named {
  name: string;
  origin: DefinitionOrigin;
}

/**
 * Keeps the first definition of each name from `items` (in precedence order). `reserved` names a
 * built-in's owner for names no file may take (`/compact`, the `plan` mode).
 */
export function pickByName<T extends Named>(items: readonly T[], what: string, reserved: ReadonlyMap<string, string> = new Map()): { winners: T[]; notices: DefinitionNotice[] } {
  const winners = new Map<string, T>();
  const notices: DefinitionNotice[] = [];
  for (const item of items) {
    const owner = reserved.get(item.name);
    if (owner !== undefined) {
      notices.push(notice('shadowed', item.origin.file, `${item.origin.file} defines the ${what} "${item.name}", which is ${owner}; the file is not used. Rename it to use it.`, { name: item.name, winner: owner }));
      continue;
    }
    const winner = winners.get(item.name);
    if (winner === undefined) {
      winners.set(item.name, item);
      continue;
    }
    const sameLevel = winner.origin.scope === item.origin.scope && winner.origin.source === item.origin.source;
    const why = sameLevel
      ? `${winner.origin.file} defines it too and comes first (by name)`
      : winner.origin.scope === 'user' && item.origin.scope === 'workspace'
        ? `your own ${winner.origin.file} takes precedence over the workspace's`
        : `${winner.origin.file} takes precedence (${winner.origin.source} is read before ${item.origin.source})`;
    notices.push(notice(sameLevel ? 'duplicate' : 'shadowed', item.origin.file, `${item.origin.file} defines the ${what} "${item.name}", but ${why}; this one is not used.`, { name: item.name, winner: winner.origin.file }));
  }
  return { winners: [...winners.values()], notices };
}
