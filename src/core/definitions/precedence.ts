/**
 * One definition per name: the first in precedence order wins (sources.ts gives the order), and
 * every one it hides is reported, so a user who wonders why their file does nothing finds out.
 */
import { userText, type UserText } from '../texts/userText';
import type { DefinitionKind } from './sources';
import { notice, type DefinitionNotice, type DefinitionOrigin } from './types';

export interface Named {
  name: string;
  origin: DefinitionOrigin;
}

const HIDDEN = { command: 'customization.commandHidden', mode: 'customization.modeHidden', skill: 'customization.skillHidden' } as const;
const RESERVED = { command: 'customization.reservedCommand', mode: 'customization.reservedMode' } as const;

/** Why a definition is hidden by `winner`, the one of its name that is used. */
function hiddenBecause(winner: DefinitionOrigin, item: DefinitionOrigin): UserText {
  if (winner.scope === item.scope && winner.source === item.source) return userText('customization.comesFirst', { winner: winner.file });
  if (winner.scope === 'user' && item.scope === 'workspace') return userText('customization.yoursFirst', { winner: winner.file });
  return userText('customization.readFirst', { winner: winner.file, winnerFolder: winner.source, folder: item.source });
}

/**
 * Keeps the first definition of each name from `items` (in precedence order). `reserved` names a
 * built-in's owner for names no file may take (`/compact`, the `plan` mode): only commands and modes have them.
 */
export function pickByName<T extends Named>(items: readonly T[], what: DefinitionKind, reserved: ReadonlyMap<string, string> = new Map()): { winners: T[]; notices: DefinitionNotice[] } {
  const winners = new Map<string, T>();
  const notices: DefinitionNotice[] = [];
  for (const item of items) {
    const owner = reserved.get(item.name);
    if (owner !== undefined && what !== 'skill') {
      notices.push(notice('shadowed', item.origin.file, userText(RESERVED[what], { file: item.origin.file, name: item.name }), { name: item.name, winner: owner }));
      continue;
    }
    const winner = winners.get(item.name);
    if (winner === undefined) {
      winners.set(item.name, item);
      continue;
    }
    const sameLevel = winner.origin.scope === item.origin.scope && winner.origin.source === item.origin.source;
    notices.push(notice(sameLevel ? 'duplicate' : 'shadowed', item.origin.file, userText(HIDDEN[what], { file: item.origin.file, name: item.name, why: hiddenBecause(winner.origin, item.origin) }), { name: item.name, winner: winner.origin.file }));
  }
  return { winners: [...winners.values()], notices };
}
