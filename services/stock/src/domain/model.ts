import type { ActiveState } from '@pf/platform/events/catalog';

/** A product as the stock service knows it: its read model of the catalog's product. */
export interface ProductFacts {
  uuid: string;
  teamCode: string;
  sku: string | null;
  activeState: ActiveState;
  podEnabled: boolean;
  podApproved: boolean;
  deleted: boolean;
  /** The catalog's version of this state; 0 for a row the demo seeder wrote before any event. */
  version: number;
}

export interface Warehouse {
  id: string;
  teamCode: string;
  code: string;
  name: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
  /** Only enabled warehouses count in the stock figure and are held from. */
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A product's stock in one warehouse. */
export interface WarehouseStock {
  productUuid: string;
  warehouse: Warehouse;
  onHand: number;
  /** Placed holds of orders on this stock. */
  held: number;
}

/** Where a held line ships from: a warehouse, or the print-on-demand location. */
export interface SupplierLocation {
  code: string;
  countryCode: string;
  printOnDemand: boolean;
}

/**
 * The print-on-demand location. Its code is reserved (no warehouse may take it); its country is
 * configured (`STOCK_POD_COUNTRY_CODE`).
 */
export const PRINT_ON_DEMAND_CODE = 'print-on-demand';

export function printOnDemandLocation(countryCode: string): SupplierLocation {
  return { code: PRINT_ON_DEMAND_CODE, countryCode, printOnDemand: true };
}

export function warehouseLocation(w: Pick<Warehouse, 'code' | 'countryCode'>): SupplierLocation {
  return { code: w.code, countryCode: w.countryCode, printOnDemand: false };
}

/**
 * placed -> released (never sent) or consumed (sent: the stock left on hand); consumed -> returned
 * (the fulfilment never left the warehouse: the stock is back on hand), and back to consumed only
 * when the change that returned it did not commit.
 */
export const HOLD_STATUSES = ['placed', 'released', 'consumed', 'returned'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/** Stock held for one order line in one location. */
export interface StockHold {
  id: string;
  teamCode: string;
  orderUuid: string;
  lineNumber: number;
  productUuid: string;
  sku: string | null;
  /** Null: print on demand. */
  warehouseId: string | null;
  location: SupplierLocation;
  quantity: number;
  status: HoldStatus;
  /** What consuming took off hand (at most `quantity`); a return gives exactly this back. 0 before, and for print on demand. */
  taken: number;
  placedAt: Date;
  releasedAt: Date | null;
  consumedAt: Date | null;
  returnedAt: Date | null;
}

/** One change of a warehouse's on-hand stock. */
export interface StockAdjustment {
  id: string;
  productUuid: string;
  warehouse: Warehouse;
  kind: 'set' | 'adjust' | 'consume' | 'return';
  delta: number;
  onHandAfter: number;
  reason: string;
  actor: string;
  at: Date;
}

/** One row of the stock-levels feed. */
export interface StockLevelRow {
  productUuid: string;
  sku: string | null;
  stock: number;
}
