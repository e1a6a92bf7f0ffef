/** Gauge arithmetic, kept apart from the DOM so it is tested in node. */
import type { GaugeState } from '../protocol';

export interface GaugeView {
  /** Shares of the whole window, 0..1, for the used / reserved / free segments. */
  usedShare: number;
  reserveShare: number;
  freeShare: number;
  thresholdShare: number;
  /** Percent of the effective window (window minus output reserve) in use. */
  percent: number;
  label: string;
  level: 'ok' | 'warn' | 'critical';
}

export function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1000)}k`;
  if (tokens >= 1000) return `${(tokens / 1000).toFixed(1)}k`;
  return String(Math.round(tokens));
}

export function gaugeView(gauge: GaugeState): GaugeView {
  const window = Math.max(1, gauge.window);
  const reserve = Math.min(Math.max(0, gauge.outputReserve), window);
  const effective = Math.max(1, window - reserve);
  const used = Math.min(Math.max(0, gauge.usedTokens), effective);
  const percent = Math.round((gauge.usedTokens / effective) * 100);
  const level = gauge.usedTokens >= gauge.autoCompactThreshold ? 'critical' : percent >= 60 ? 'warn' : 'ok';
  return {
    usedShare: used / window,
    reserveShare: reserve / window,
    freeShare: Math.max(0, (effective - used) / window),
    thresholdShare: Math.min(1, Math.max(0, gauge.autoCompactThreshold / window)),
    percent,
    label: `${percent}% · ${formatTokens(gauge.usedTokens)} / ${formatTokens(effective)}`,
    level,
  };
}
