// Reads a V8 CPU profile (`node --cpu-prof`) and says where the time went: self time per
// function, and per origin (our code, a package in node_modules, Node's internals, GC).
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * @param {string} file a .cpuprofile
 * @param {string} root the repository root, to shorten paths
 * @param {number} [top]
 * @param {{ startUs: number, endUs: number }[]} [windows] only samples inside these windows (on
 *   the monotonic clock of process.hrtime, which V8's profile timestamps share), e.g. to leave out
 *   start-up; all samples when absent
 */
export function summarizeCpuProfile(file, root, top = 20, windows) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // Self time per node: each sample names the node that was on top of the stack.
  const selfUs = new Map();
  const deltas = profile.timeDeltas ?? [];
  const inWindow = (t) => !windows || windows.some((w) => t >= w.startUs && t <= w.endUs);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's node was on top of the stack until the next sample (as DevTools counts it).
    t += deltas[i] ?? 0;
    const next = deltas[i + 1] ?? 0;
    if (!inWindow(t)) continue;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + next);
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  let idleUs = 0;
  const fns = new Map();
  const origins = new Map();
  const inclusive = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const where = originOf(callFrame, root);
    const key = `${callFrame.functionName || '(anonymous)'} ${where.location}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    origins.set(where.origin, (origins.get(where.origin) ?? 0) + us);
    // Inclusive ("total") time: each function on the stack once, recursion counted once.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!frame.url || frame.url.startsWith('node:')) continue;
      const w = originOf(frame, root);
      const k = `${frame.functionName || '(anonymous)'} ${w.location}`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const busyUs = totalUs - idleUs;
  const rank = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, percentOfBusy: (100 * us) / busyUs }));
  return {
    file,
    totalMs: totalUs / 1000,
    busyMs: busyUs / 1000,
    functions: rank(fns),
    origins: rank(origins),
    /** Functions of our code and of packages (not Node's internals) by time including their callees. */
    inclusive: rank(inclusive),
  };
}

function originOf(callFrame, root) {
  const { url, lineNumber, functionName } = callFrame;
  if (!url) {
    // (garbage collector), (program), native builtins
    return { origin: functionName.startsWith('(') ? functionName : '(native)', location: '' };
  }
  if (url.startsWith('node:')) return { origin: 'node internals', location: `${url}:${lineNumber + 1}` };
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const rel = path.relative(root, file);
  const nm = rel.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = rel.slice(nm + 'node_modules/'.length).split('/');
    const pkg = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    return { origin: `npm ${pkg}`, location: `${rel.slice(nm + 'node_modules/'.length)}:${lineNumber + 1}` };
  }
  const top = rel.split('/').slice(0, rel.startsWith('services/') || rel.startsWith('libs/') ? 2 : 1).join('/');
  return { origin: `ours ${top}`, location: `${rel}:${lineNumber + 1}` };
}
