/** The session's insights as the insights panel shows them: each action's label and detail in words (the numbers stay numbers). */
import type { SessionInsights } from '../../core/insights/sessionInsights';
import type { Worded } from '../../core/texts/userText';
import { word } from './index';

export function wordInsights(insights: SessionInsights): Worded<SessionInsights> {
  return { ...insights, actions: insights.actions.map((action) => ({ ...action, label: word(action.label), detail: word(action.detail) })) };
}
