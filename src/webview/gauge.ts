/**
 * What the header gauge shows, kept apart from the DOM so it is tested in node. Dumb on purpose:
 * the core computes the percent, shares, level and texts (GaugeReading, worded by the host) and the panel only maps
 * them to widths and attributes, so it always agrees with the status bar and the breakdown document.
 */
import { gaugeTooltipText, type GaugeState } from '../protocol';
import { t } from './strings';

export interface GaugeView {
  /** CSS widths of the used / reserved / free segments (they add up to 100%). */
  used: string;
  reserve: string;
  free: string;
  /** CSS `left` of the auto-compact marker; undefined hides it. */
  threshold: string | undefined;
  level: GaugeState['reading']['level'] | 'empty';
  label: string;
  secondary: string;
  tooltip: string;
  /** For role="meter": the value (clamped to 0..100) and its spoken text. */
  ariaValueNow: number;
  ariaValueText: string;
}

const pct = (share: number) => `${(Math.min(1, Math.max(0, share)) * 100).toFixed(2)}%`;

export function gaugeView(gauge: GaugeState | undefined): GaugeView {
  if (!gauge) {
    return {
      used: '0%',
      reserve: '0%',
      free: '100%',
      threshold: undefined,
      level: 'empty',
      label: t('gauge.empty'),
      secondary: '',
      tooltip: t('gauge.emptyTooltip'),
      ariaValueNow: 0,
      ariaValueText: t('gauge.empty'),
    };
  }
  const reading = gauge.reading;
  return {
    used: pct(reading.usedShare),
    reserve: pct(reading.reserveShare),
    free: pct(reading.freeShare),
    threshold: pct(reading.thresholdShare),
    level: reading.level,
    label: reading.label,
    secondary: reading.secondary,
    tooltip: t('gauge.tooltip', gaugeTooltipText(reading.tooltip)),
    ariaValueNow: Math.min(100, Math.max(0, reading.percent)),
    ariaValueText: `${reading.label}, ${reading.secondary}`,
  };
}
