import type { ActiveState } from '@pf/platform/events/catalog';
import type { Identity } from '@pf/platform/identity';
import { loadStockConfig } from './config';
import { openStockDb } from './db';
import type { Warehouse } from './domain/model';
import { levelsOf } from './repositories/stock-repository';
import { StockUseCases } from './use-cases';
import { recordSeededProducts } from './use-cases/product-read-model';

/** A product as the catalog's demo seeder returns it. */
export interface DemoStockProduct {
  uuid: string;
  sku: string | null;
  activeState: ActiveState;
  podEnabled: boolean;
  podApproved: boolean;
  deleted?: boolean;
}

export interface DemoStockOptions {
  databaseUrl: string;
  teamCode: string;
  products: readonly DemoStockProduct[];
}

export interface DemoStock {
  warehouses: Warehouse[];
  /** Stock rows this call created (0 when everything was seeded before). */
  stockRowsCreated: number;
}

/** The identity the seeder acts with: a platform operator. */
const SEEDER: Identity = { kind: 'service', service: 'stock-seed' };

const WAREHOUSES = [
  { code: 'london', name: 'London warehouse', countryCode: 'GB', enabled: true },
  { code: 'rotterdam', name: 'Rotterdam warehouse', countryCode: 'NL', enabled: true },
  { code: 'newark', name: 'Newark overflow (closed)', countryCode: 'US', enabled: false },
] as const;

/**
 * Stock per product by its position, cycling: sold out everywhere that counts (with stock left
 * only in the disabled warehouse), one warehouse, split over two, the other one, and a little
 * in London with more in the disabled warehouse (which the figure ignores).
 */
const PATTERNS: Partial<Record<(typeof WAREHOUSES)[number]['code'], number>>[] = [
  { london: 0, rotterdam: 0, newark: 12 },
  { london: 25 },
  { london: 10, rotterdam: 5 },
  { rotterdam: 40 },
  { london: 3, newark: 50 },
];

/**
 * Seeds the demo team's warehouses and stock, through the ordinary use cases (so adjustments are
 * logged and `stock-level.changed` events written). Safe to call again: existing warehouses and
 * stock rows are kept as they are (a merchant's changes survive a restart).
 *
 * The stock service learns products from the catalog's events, which may not have arrived yet
 * when this runs. So the products given here are first recorded in the read model at version 0,
 * unless already known; the catalog's events (version 1 and up) always override such a row.
 */
export async function seedDemoStock(opts: DemoStockOptions): Promise<DemoStock> {
  const cfg = loadStockConfig({});
  const db = openStockDb(opts.databaseUrl, 2);
  try {
    const stock = new StockUseCases({ pool: db.pool, prisma: db.prisma, podCountryCode: cfg.STOCK_POD_COUNTRY_CODE });
    await recordSeededProducts(
      stock.deps,
      opts.products.map((p) => ({
        uuid: p.uuid.toLowerCase(),
        teamCode: opts.teamCode,
        sku: p.sku,
        activeState: p.activeState,
        podEnabled: p.podEnabled,
        podApproved: p.podApproved,
        deleted: p.deleted ?? false,
      })),
    );
    const existing = await stock.listWarehouses(SEEDER, opts.teamCode);
    const warehouses: Warehouse[] = [];
    for (const w of WAREHOUSES) {
      warehouses.push(existing.find((e) => e.code === w.code) ?? (await stock.createWarehouse(SEEDER, { teamCode: opts.teamCode, ...w })));
    }
    const byCode = new Map(warehouses.map((w) => [w.code, w]));
    const listed = opts.products.filter((p) => !p.deleted);
    const stocked = new Set(
      (await levelsOf(
        db.pool,
        listed.map((p) => p.uuid.toLowerCase()),
      )).map((l) => `${l.productUuid}|${l.warehouse.id}`),
    );
    let stockRowsCreated = 0;
    for (const [i, product] of listed.entries()) {
      for (const [code, quantity] of Object.entries(PATTERNS[i % PATTERNS.length]!)) {
        const warehouse = byCode.get(code)!;
        const productUuid = product.uuid.toLowerCase();
        if (stocked.has(`${productUuid}|${warehouse.id}`)) continue;
        await stock.setStock(SEEDER, { productUuid, warehouseId: warehouse.id, quantity, reason: 'Demo stock' });
        stockRowsCreated += 1;
      }
    }
    return { warehouses, stockRowsCreated };
  } finally {
    await db.close();
  }
}
