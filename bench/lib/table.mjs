// Plain-text tables for the terminal.

/**
 * @param {string[]} headers
 * @param {(string|number)[][]} rows  Numbers are right-aligned, text left-aligned.
 * @param {string} [title]
 */
export function formatTable(headers, rows, title) {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_h, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^[-+]?[\d.,]+( ?[%x×]| ms)?$/.test(String(r[i]))));
  const line = (r) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [];
  if (title) out.push(title);
  out.push(line(headers));
  out.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) out.push(line(r));
  return out.join('\n');
}

/** Fixed decimals; '-' for a missing figure. */
export function num(value, decimals = 0) {
  return Number.isFinite(value) ? value.toFixed(decimals) : '-';
}

export function ms(value) {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : '-';
}

export function pct(value) {
  return Number.isFinite(value) ? `${value.toFixed(0)} %` : '-';
}

export function times(value, decimals = 2) {
  return Number.isFinite(value) ? `${value.toFixed(decimals)}x` : '-';
}

export function yesNo(ok) {
  return ok ? 'yes' : 'NO';
}
