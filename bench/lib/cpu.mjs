// CPU time of processes, read from /proc (Linux), to show where the cores went during a window.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of one process in seconds; 0 when it is gone or /proc is unavailable. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return 0;
  }
}

/**
 * A snapshot of the CPU seconds of each pid of each name.
 * @param {Record<string, number[]>} groups
 * @returns {Record<string, Map<number, number>>}
 */
export function cpuSnapshot(groups) {
  const out = {};
  for (const [name, pids] of Object.entries(groups)) {
    out[name] = new Map(pids.map((pid) => [pid, processCpuSeconds(pid)]));
  }
  return out;
}

/**
 * CPU seconds each name used between two snapshots. A pid only in `after` (started meanwhile)
 * counts whole; a pid gone by `after` counts nothing (its last part is unknown).
 */
export function cpuBetween(before, after) {
  const out = {};
  for (const [name, pids] of Object.entries(after)) {
    let sum = 0;
    for (const [pid, seconds] of pids) {
      if (seconds === 0) continue; // gone
      sum += Math.max(0, seconds - (before[name]?.get(pid) ?? 0));
    }
    out[name] = sum;
  }
  return out;
}

/**
 * Pids of every process whose command name is `comm` (e.g. PostgreSQL backends), optionally only
 * those whose command line contains `cmdlineIncludes` (a backend's line names its database).
 */
export function pidsByCommand(comm, cmdlineIncludes) {
  const pids = [];
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (cmdlineIncludes && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(cmdlineIncludes)) continue;
      pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Busy CPU seconds of the whole machine (all cores, every process) since boot, from /proc/stat. */
export function machineBusySeconds() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    // cpu user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / clockTicks();
  } catch {
    return NaN;
  }
}

/** Percent of one core the whole machine was busy over `ms` (200 % = two cores fully busy). */
export async function machineBusyPercent(ms = 1000) {
  const start = machineBusySeconds();
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, ms));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return (100 * (machineBusySeconds() - start)) / seconds;
}
