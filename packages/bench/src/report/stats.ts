/** Order statistics for small samples. */

/** The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Median, p90, min, max and count of a sample, rounded to whole ms. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** Summarizes a sample (NaN fields when it is empty). */
export function summarize(values: readonly number[]): Summary {
  const r = (x: number): number => (Number.isNaN(x) ? x : Math.round(x));
  return {
    n: values.length,
    median: r(quantile(values, 0.5)),
    p90: r(quantile(values, 0.9)),
    min: r(values.length ? Math.min(...values) : Number.NaN),
    max: r(values.length ? Math.max(...values) : Number.NaN),
  };
}
