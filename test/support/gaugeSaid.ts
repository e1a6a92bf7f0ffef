/**
 * The token gauge's reading as a user reads it (the CLI's words, English): its label, secondary
 * line and hover as text. A gauge the CLI already worded (from stream-json) reads as itself.
 */
import { gaugeTooltipText, type ContextGauge } from '../../src/core/context/gauge';
import type { UserText, Worded } from '../../src/core/texts/userText';
import { said } from './said';

type AnyReading = ContextGauge['reading'] | Worded<ContextGauge>['reading'];

/** The hover as one text, lines and paragraphs joined as every front end shows it. */
export function saidTooltip(reading: AnyReading): string {
  const paragraphs: ReadonlyArray<ReadonlyArray<UserText | string>> = reading.tooltip;
  return gaugeTooltipText(paragraphs.map((lines) => lines.map((line) => said(line))));
}

export function saidLabel(reading: AnyReading): string {
  return said(reading.label);
}

export function saidSecondary(reading: AnyReading): string {
  return said(reading.secondary);
}
