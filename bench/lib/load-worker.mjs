// The load generator's own process (forked by lib/load.mjs), so it never shares an event loop
// with anything it measures. It receives one job over IPC, runs autocannon for the warm-up
// (discarded) and then for the measured window, and answers with the figures.
//
// Latencies are taken from autocannon's per-response event in fractional milliseconds and kept
// whole: autocannon's own histogram stores whole milliseconds, too coarse for a sub-millisecond
// p50 at one connection.
import autocannon from 'autocannon';
import { summarizeLatencies } from './stats.mjs';

/** @param {import('./load.mjs').LoadJob} job @param {number} seconds @param {boolean} record */
function runOnce(job, seconds, record) {
  let samples = new Float64Array(record ? 1 << 16 : 0);
  let count = 0;
  const statusCounts = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        method: job.method ?? 'GET',
        headers: job.headers ?? {},
        body: job.body,
        connections: job.connections,
        pipelining: 1,
        duration: seconds,
        timeout: job.timeoutSeconds ?? 10,
        // A cap on requests per second over all connections. autocannon spends each second's quota
        // back to back and then idles: a burst a second, not an even pace (see orders.mjs's
        // runPacedOrders and edge.mjs's evenlyPaced for evenly spaced arrivals).
        ...(job.overallRate ? { overallRate: job.overallRate } : {}),
      },
      (err, result) => (err ? reject(err) : resolve({ result, samples: samples.subarray(0, count), statusCounts })),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (!record || statusCode < 200 || statusCode > 299) return;
      if (count === samples.length) {
        const bigger = new Float64Array(samples.length * 2);
        bigger.set(samples);
        samples = bigger;
      }
      samples[count++] = responseTime;
    });
  });
}

process.once('message', async (/** @type {import('./load.mjs').LoadJob} */ job) => {
  try {
    if (job.warmupSeconds > 0) await runOnce(job, job.warmupSeconds, false);
    process.send({ kind: 'measuring' });
    const { result, samples, statusCounts } = await runOnce(job, job.durationSeconds, true);
    const ok = samples.length;
    process.send({
      kind: 'result',
      result: {
        durationSeconds: result.duration,
        requests: result.requests.total,
        ok,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCounts,
        requestsPerSecond: ok / result.duration,
        latencyMs: summarizeLatencies(samples),
      },
    });
  } catch (err) {
    process.send({ kind: 'error', message: err instanceof Error ? err.stack : String(err) });
  } finally {
    process.disconnect();
  }
});
