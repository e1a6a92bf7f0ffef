/** The token gauge as a front end shows it: its reading's label, secondary line and hover in words (the numbers stay numbers). */
import type { ContextGauge } from '../../core/context/gauge';
import type { Worded } from '../../core/texts/userText';
import { word } from './index';

export function wordGauge(gauge: ContextGauge): Worded<ContextGauge> {
  const { reading } = gauge;
  return { ...gauge, reading: { ...reading, label: word(reading.label), secondary: word(reading.secondary), tooltip: reading.tooltip.map((lines) => lines.map(word)) } };
}
