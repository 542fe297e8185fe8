import { describe, expect, it } from 'vitest';
import { median } from './median.ts';

describe('median', () => {
  it('is the middle value, or the rounded mean of the two middle ones, of numbers in any order; null for none', () => {
    expect(median([])).toBeNull();
    expect(median([30, 10, 20])).toBe(20);
    expect(median([30, 10, 20, 40])).toBe(25);
    expect(median([1, 2])).toBe(2);
  });
});
