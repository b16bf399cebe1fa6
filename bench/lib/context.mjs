// What run.mjs hands each benchmark: options, its process group, a clean-up stack that runs on
// success, failure and Ctrl-C alike, and the load runner wired to both.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import path from 'node:path';
import { machineBusyPercent } from './cpu.mjs';
import { runLoad } from './load.mjs';
import { ProcessGroup } from './processes.mjs';

/**
 * @typedef {object} BenchOptions
 * @property {boolean} quick    Short windows, to check the harness itself (figures not meaningful).
 * @property {boolean} profile  Services run with --cpu-prof; the benchmark summarises the profiles.
 */

/** Idle enough to measure: the run's own idle processes (Kafka clients, relays) stay well below this. */
const QUIET_PERCENT = Number(process.env.BENCH_QUIET_PERCENT ?? 25);
const QUIET_WAIT_MS = Number(process.env.BENCH_QUIET_WAIT_SECONDS ?? 180) * 1000;
/** A window disturbed by other work anyway is measured again, this many times at most; the least disturbed one counts. */
const RETRIES_WHEN_DISTURBED = Number(process.env.BENCH_RETRIES ?? 2);

export class BenchContext {
  /** @param {{ name: string, root: string, options: BenchOptions, timestamp: string }} init */
  constructor(init) {
    this.name = init.name;
    this.root = init.root;
    this.options = init.options;
    this.timestamp = init.timestamp;
    this.resultsDir = path.join(init.root, 'bench', 'results');
    /** Logs (and profiles) of this run's processes. */
    this.runDir = path.join(this.resultsDir, `${init.name}-${init.timestamp}`);
    this.processes = new ProcessGroup(this.runDir);
    /** @type {{ label: string, fn: () => Promise<unknown> }[]} */
    this.cleanups = [];
    /** @type {Promise<void> | null} */
    this.cleaning = null;
  }

  /** Registers clean-up work; it runs in reverse order of registration. */
  onCleanup(label, fn) {
    this.cleanups.push({ label, fn });
  }

  log(message) {
    process.stdout.write(`[${this.name}] ${message}\n`);
  }

  print(text) {
    process.stdout.write(`\n${text}\n`);
  }

  /**
   * One load window in the load worker's own process, with the CPU time of `watch`'s processes.
   * @param {import('./load.mjs').LoadJob} job
   * @param {() => Record<string, number[]>} [watch]
   */
  async load(job, watch) {
    let best;
    for (let attempt = 0; attempt <= RETRIES_WHEN_DISTURBED; attempt++) {
      await this.waitForQuietMachine();
      const result = await runLoad(job, { watch, register: (child) => this.processes.track(child) });
      if (!best || result.otherCpuPercent < best.otherCpuPercent) best = result;
      if (result.otherCpuPercent <= QUIET_PERCENT || this.options.quick) break;
      if (attempt < RETRIES_WHEN_DISTURBED) {
        this.log(`  other processes used ${result.otherCpuPercent.toFixed(0)} % of a core meanwhile: measuring this window again`);
      }
    }
    return best;
  }

  /**
   * On a shared machine other work disturbs the figures: before a window, wait (bounded) until the
   * machine, this run's idle processes included, is below `QUIET_PERCENT` of one core.
   */
  async waitForQuietMachine() {
    const deadline = Date.now() + QUIET_WAIT_MS;
    let busy = await machineBusyPercent(1000);
    if (busy <= QUIET_PERCENT) return;
    this.log(`waiting for the machine to quiet down (busy ${busy.toFixed(0)} % of a core; at most ${QUIET_WAIT_MS / 1000} s)`);
    while (busy > QUIET_PERCENT && Date.now() < deadline) busy = await machineBusyPercent(2000);
    if (busy > QUIET_PERCENT) this.log(`still busy (${busy.toFixed(0)} %): measuring anyway; see "other CPU"`);
  }

  /** Stops every child, then runs the clean-ups; each step's failure is reported, not thrown. */
  cleanup() {
    this.cleaning ??= this.runCleanups();
    return this.cleaning;
  }

  async runCleanups() {
    await this.processes.stopAll().catch((err) => this.log(`stopping processes failed: ${err.message}`));
    for (const { label, fn } of this.cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        this.log(`clean-up "${label}" failed: ${err.message}`);
      }
    }
  }
}

/** The facts about the machine that a figure needs next to it. */
export function machineFacts(root) {
  let commit = 'unknown';
  let dirty = false;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim() !== '';
  } catch {
    // not a git checkout
  }
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    loadAverage1m: loadavg()[0],
    commit,
    dirtyWorkTree: dirty,
  };
}
