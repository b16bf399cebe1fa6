// Runs one load window with autocannon in a child process of its own (lib/load-worker.mjs), and
// samples the CPU time every named process spent during the measured part of the window.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuBetween, cpuSnapshot, machineBusySeconds } from './cpu.mjs';

const WORKER = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

/**
 * @typedef {object} LoadJob
 * @property {string} url  A loopback URL.
 * @property {string} [method]
 * @property {Record<string, string>} [headers]
 * @property {string} [body]
 * @property {number} connections
 * @property {number} warmupSeconds   Load before the window, not measured.
 * @property {number} durationSeconds The measured window.
 * @property {number} [timeoutSeconds]
 */

/**
 * @typedef {object} LoadResult
 * @property {number} durationSeconds
 * @property {number} requests  Every response, any status.
 * @property {number} ok        2xx responses (the only ones in the latencies and the rate).
 * @property {number} non2xx
 * @property {number} errors
 * @property {number} timeouts
 * @property {Record<string, number>} statusCounts
 * @property {number} requestsPerSecond  2xx responses per second of the window.
 * @property {{count:number,min:number,p50:number,p90:number,p99:number,max:number,mean:number}} latencyMs
 * @property {Record<string, number>} cpuPercent  Per watched process: CPU time / window (100 = one core).
 * @property {number} otherCpuPercent  CPU the rest of the machine used meanwhile (not the run's processes).
 * @property {{ startUs: number, endUs: number }} window  The measured window on the monotonic clock
 *   (process.hrtime, the clock of V8's CPU profiles), to cut a profile to it.
 */

/**
 * @param {LoadJob} job
 * @param {{ watch?: () => Record<string, number[]>, register?: (child: import('node:child_process').ChildProcess) => () => void, worker?: string }} [opts]
 *   `watch` names the processes (pids) whose CPU time is sampled; `register` lets the caller kill
 *   the worker on Ctrl-C and returns its unregister function; `worker` is another load worker
 *   script speaking the same messages (for load a fixed request cannot describe, such as a
 *   sequence whose second request needs the first one's answer).
 * @returns {Promise<LoadResult>}
 */
export function runLoad(job, opts = {}) {
  assertLoopback(job.url);
  const child = fork(opts.worker ?? WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const unregister = opts.register?.(child) ?? (() => {});
  const limitMs = (job.warmupSeconds + job.durationSeconds + 60) * 1000;
  return new Promise((resolve, reject) => {
    let before;
    let watched = {};
    let settled = false;
    const finish = (fn) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unregister();
      fn();
    };
    // Bounded: a worker that hangs is killed and the window fails.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`load worker did not finish within ${limitMs / 1000} s`)));
    }, limitMs);
    child.on('message', (msg) => {
      if (msg.kind === 'measuring') {
        watched = { ...(opts.watch?.() ?? {}), 'load generator': [child.pid] };
        before = { cpu: cpuSnapshot(watched), machine: machineBusySeconds(), at: process.hrtime.bigint() };
      } else if (msg.kind === 'result') {
        // The pids again: a backend or worker may have started during the window.
        const used = before ? cpuBetween(before.cpu, cpuSnapshot({ ...(opts.watch?.() ?? {}), 'load generator': [child.pid] })) : {};
        const machine = machineBusySeconds();
        const end = process.hrtime.bigint();
        const wallSeconds = before ? Number(end - before.at) / 1e9 : NaN;
        const cpuPercent = {};
        let ours = 0;
        for (const name of Object.keys(watched)) {
          cpuPercent[name] = before ? (100 * used[name]) / wallSeconds : NaN;
          ours += cpuPercent[name];
        }
        const machinePercent = before ? (100 * (machine - before.machine)) / wallSeconds : NaN;
        const window = { startUs: before ? Number(before.at / 1000n) : NaN, endUs: Number(end / 1000n) };
        finish(() => resolve({ ...msg.result, cpuPercent, otherCpuPercent: Math.max(0, machinePercent - ours), window }));
      } else if (msg.kind === 'error') {
        finish(() => reject(new Error(`load worker failed: ${msg.message}`)));
      }
    });
    child.on('exit', (code, signal) => {
      finish(() => reject(new Error(`load worker exited early (${signal ?? code})`)));
    });
    child.send(job);
  });
}

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!(host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`the bench only sends load to loopback addresses, not ${host}`);
  }
}
