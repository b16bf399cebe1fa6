import type { Violation } from '@pf/platform/problems';
import type { OrderLine } from './model';
import type { RequestedLine } from './order-input';

/**
 * Rule O3: lines are matched exactly (case and whitespace count) on SKU against the team's live
 * products. With `strictSkus`, any unmatched line refuses the whole order (422 naming each
 * `orderLines[i].product.sku`); without it, unmatched lines are dropped. The matched lines are
 * returned in line-number order.
 *
 * @param productBySku the team's live products by SKU
 */
export function matchSkus(
  lines: readonly RequestedLine[],
  productBySku: ReadonlyMap<string, string>,
  strictSkus: boolean,
  prefix = '',
): { ok: true; lines: OrderLine[]; dropped: RequestedLine[] } | { ok: false; violations: Violation[] } {
  const matched: OrderLine[] = [];
  const dropped: RequestedLine[] = [];
  for (const line of lines) {
    const productUuid = productBySku.get(line.sku);
    if (productUuid) matched.push({ lineNumber: line.lineNumber, sku: line.sku, quantity: line.quantity, productUuid });
    else dropped.push(line);
  }
  if (strictSkus && dropped.length > 0) {
    return {
      ok: false,
      violations: dropped.map((l) => ({ property: `${prefix}orderLines[${l.index}].product.sku`, message: `No product of the team has SKU "${l.sku}".` })),
    };
  }
  // In line-number order, as the order is read back: the answer to a create, replay or amend
  // lists the lines as every later read does, and a replay sent in another order is the same lines.
  matched.sort((a, b) => a.lineNumber - b.lineNumber);
  return { ok: true, lines: matched, dropped };
}
