import { describe, expect, it } from 'vitest';
import { toLatencyChart } from './chart.ts';
import { median } from '../../../data/median.ts';

describe('chart.ts', () => {
  it('draws nothing with fewer than two timed points', () => {
    expect(toLatencyChart([], 'x')).toBeNull();
    expect(toLatencyChart([{ label: 'a', ms: 10, ok: true }, { label: 'b', ms: null, ok: false }], 'x')).toBeNull();
  });

  it('scales to a round top, puts untimed checks on the baseline and marks misses', () => {
    const chart = toLatencyChart([
      { label: 'first', ms: 100, ok: true },
      { label: 'second', ms: null, ok: false },
      { label: 'third', ms: 380, ok: true },
      { label: 'last', ms: 200, ok: false },
    ], 'the last 4 checks')!;
    expect(chart.ticks.map((tick) => tick.label)).toEqual(['0 ms', '500 ms']);
    expect(chart.maxLabel).toBe('500 ms');
    expect(chart.dots).toHaveLength(4);
    expect(chart.dots[1]).toMatchObject({ y: chart.ticks[0]!.y, ok: false });
    expect(chart.dots[0]!.x).toBeLessThan(chart.dots[3]!.x);
    expect(chart.dots[2]!.y).toBeLessThan(chart.dots[0]!.y);
    expect(chart.path.match(/[ML]/g)).toHaveLength(3);
    expect(chart.summary).toBe('Response time of the last 4 checks: median 200 ms, fastest 100 ms, slowest 380 ms; 2 without a challenge (marked red).');
    expect([chart.firstLabel, chart.lastLabel]).toEqual(['first', 'last']);
    expect(chart.dots[3]!.title).toBe('last: 200 ms, no challenge detected');
  });

  it('takes the median the key facts take: with an even count, the mean of the two middle values', () => {
    const values = [120, 100, 301, 400];
    const chart = toLatencyChart(values.map((ms, k) => ({ label: String(k), ms, ok: true })), 'the last 4 checks')!;
    expect(median(values)).toBe(211);
    expect(chart.summary).toBe('Response time of the last 4 checks: median 211 ms, fastest 100 ms, slowest 400 ms.');
  });
});
