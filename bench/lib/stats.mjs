// Small statistics helpers shared by the load worker and the benchmarks.

/**
 * Nearest-rank percentile of sorted values (p in 0..100).
 * @param {Float64Array | number[]} sorted
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Latency summary in milliseconds from every sample of a window.
 * @param {Float64Array} samples
 */
export function summarizeLatencies(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted.length ? sorted[0] : NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

/** a / b, or NaN when b is not a positive number. */
export function ratio(a, b) {
  return b > 0 ? a / b : NaN;
}
