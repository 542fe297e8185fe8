import { median } from '../../../data/median.ts';

/**
 * A small latency chart computed at build time and drawn as inline SVG (site/src/components/LatencyChart.astro):
 * a line through the response times, a dot per check, a red mark where a check detected no challenge.
 */

export interface ChartPoint {
  /** Label of the point's time, e.g. `2026-11-01 12:00 UTC` or a day `2026-11-01`. */
  label: string;
  /** Response time in ms, or null when the check timed out or failed before answering. */
  ms: number | null;
  /** Whether the check detected a challenge. */
  ok: boolean;
}

export interface ChartDot {
  x: number;
  y: number;
  ok: boolean;
  title: string;
}

export interface LatencyChart {
  width: number;
  height: number;
  /** Where the plot starts and ends horizontally. */
  left: number;
  right: number;
  /** The SVG path of the line through the points that have a response time. */
  path: string;
  dots: ChartDot[];
  /** Horizontal guide lines (0 ms and the top of the scale). */
  ticks: Array<{ y: number; label: string }>;
  /** The top of the scale, e.g. `500 ms`. */
  maxLabel: string;
  /** Labels under the first and last points. */
  firstLabel: string;
  lastLabel: string;
  /** The chart in one sentence, for screen readers and as its caption. */
  summary: string;
}

/** Room around the plot for the dots; labels are HTML under the chart, so they keep their size at any width. */
const PAD = { left: 6, right: 6, top: 8, bottom: 8 };

/**
 * The chart of some points, oldest first, or null when fewer than two have a response time.
 * @example toLatencyChart([{ label: 'a', ms: 120, ok: true }, { label: 'b', ms: 80, ok: true }], 'the last 2 checks')
 */
export function toLatencyChart(points: readonly ChartPoint[], what: string, size = { width: 420, height: 100 }): LatencyChart | null {
  const timed = points.filter((point) => point.ms !== null);
  if (timed.length < 2) return null;
  const values = timed.map((point) => point.ms as number);
  const slowest = Math.max(...values);
  const max = niceCeiling(slowest);
  const plotWidth = size.width - PAD.left - PAD.right;
  const plotHeight = size.height - PAD.top - PAD.bottom;
  const step = points.length > 1 ? plotWidth / (points.length - 1) : 0;
  const toY = (ms: number) => round(PAD.top + plotHeight - (ms / max) * plotHeight);
  const baseline = PAD.top + plotHeight;

  const dots: ChartDot[] = points.map((point, index) => ({
    x: round(PAD.left + index * step),
    y: point.ms === null ? baseline : toY(point.ms),
    ok: point.ok,
    title: `${point.label}: ${point.ms === null ? 'no response time' : `${point.ms} ms`}, ${point.ok ? 'challenge detected' : 'no challenge detected'}`,
  }));
  const path = dots
    .filter((_, index) => points[index]!.ms !== null)
    .map((dot, index) => `${index === 0 ? 'M' : 'L'}${dot.x} ${dot.y}`)
    .join(' ');
  const misses = points.filter((point) => !point.ok).length;
  const summary = `Response time of ${what}: median ${median(values)} ms, fastest ${Math.min(...values)} ms, slowest ${slowest} ms` +
    (misses > 0 ? `; ${misses} without a challenge (marked red).` : '.');
  return {
    width: size.width,
    height: size.height,
    left: PAD.left,
    right: size.width - PAD.right,
    path,
    dots,
    ticks: [
      { y: baseline, label: '0 ms' },
      { y: PAD.top, label: `${max} ms` },
    ],
    maxLabel: `${max} ms`,
    firstLabel: points[0]!.label,
    lastLabel: points[points.length - 1]!.label,
    summary,
  };
}

/** A round number at or above the value (1, 2 or 5 times a power of ten). */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 5, 10]) {
    if (factor * power >= value) return factor * power;
  }
  return 10 * power;
}

const round = (value: number) => Math.round(value * 10) / 10;
