// Child processes of a benchmark: each service runs from its compiled dist/main.js in its own
// process, with its log in a file, and is stopped (SIGTERM, then SIGKILL) when the run ends.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port that was free a moment ago on 127.0.0.1 (the kernel picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The environment a child starts from: nothing of the caller's besides what a process needs to run. */
export function baseEnv() {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ'];
  const env = {};
  for (const key of keep) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

/**
 * @typedef {object} ServiceProcess
 * @property {string} name
 * @property {number} pid
 * @property {number} port
 * @property {string} url   `http://127.0.0.1:<port>`
 * @property {string} logFile
 * @property {import('node:child_process').ChildProcess} child
 */

export class ProcessGroup {
  /** @param {string} logDir where each child's stdout and stderr go, one file per child */
  constructor(logDir) {
    this.logDir = logDir;
    /** @type {Set<import('node:child_process').ChildProcess>} */
    this.children = new Set();
    /** @type {ServiceProcess[]} */
    this.services = [];
  }

  /**
   * Starts `node <script>` with `env` and waits until `readyPath` answers 200 on 127.0.0.1:port.
   * Fails (with the log's tail) when the process exits first or is not ready in time.
   * @param {{ name: string, script: string, port: number, env: Record<string, string>, nodeArgs?: string[], readyPath?: string, readyTimeoutMs?: number }} spec
   * @returns {Promise<ServiceProcess>}
   */
  async startService(spec) {
    mkdirSync(this.logDir, { recursive: true });
    const logFile = path.join(this.logDir, `${spec.name}.log`);
    const log = createWriteStream(logFile, { flags: 'a' });
    const child = spawn(process.execPath, [...(spec.nodeArgs ?? []), spec.script], {
      env: { ...spec.env, PORT: String(spec.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.track(child);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const service = { name: spec.name, pid: child.pid, port: spec.port, url: `http://127.0.0.1:${spec.port}`, logFile, child };

    let exited = null;
    child.once('exit', (code, signal) => (exited = signal ?? `code ${code}`));
    const deadline = Date.now() + (spec.readyTimeoutMs ?? 60_000);
    const readyUrl = `${service.url}${spec.readyPath ?? '/readyz'}`;
    let last = 'no answer yet';
    for (;;) {
      if (exited) throw new Error(`${spec.name} exited (${exited}) before it was ready; see ${logFile}`);
      try {
        const res = await fetch(readyUrl, { signal: AbortSignal.timeout(3000) });
        const text = await res.text();
        if (res.status === 200) break;
        last = `${res.status} ${text.slice(0, 300)}`;
      } catch (err) {
        last = err.cause?.code ?? err.message;
      }
      if (Date.now() > deadline) throw new Error(`${spec.name} not ready after ${spec.readyTimeoutMs ?? 60_000} ms (${last}); see ${logFile}`);
      await sleep(200);
    }
    this.services.push(service);
    return service;
  }

  /** Follows any child (a load worker too) so that stopAll() reaches it. Returns its unregister function. */
  track(child) {
    this.children.add(child);
    const forget = () => this.children.delete(child);
    child.once('exit', forget);
    return forget;
  }

  /** Stops one service gracefully (SIGTERM), killing it if it takes longer than `graceMs`. */
  async stop(service, graceMs = 15_000) {
    await stopChild(service.child, graceMs);
    this.services = this.services.filter((s) => s !== service);
  }

  /** Stops every child still running, newest first (the edge before the gateway before accounts). */
  async stopAll(graceMs = 15_000) {
    const children = [...this.children].reverse();
    for (const child of children) await stopChild(child, graceMs);
    this.services = [];
  }
}

async function stopChild(child, graceMs) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
