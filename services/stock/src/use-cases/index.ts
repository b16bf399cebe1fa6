import type { EventEnvelope } from '@pf/platform/events/envelope';
import type { Identity } from '@pf/platform/identity';
import type { StockDeps } from './deps';
import { consumeHolds, fenceOrderHolds, holdStock, orderHolds, reconsumeHolds, reinstateHolds, releaseHolds, restoreHolds, returnHolds, unconsumeHolds, type HoldStockInput } from './holds';
import { applyCatalogProductEvent } from './product-read-model';
import { adjustStock, productStocks, setStock, stockAdjustments, stockLevels, stockLevelsOf, warehouseStockOf, type AdjustStockInput, type ProductStock, type SetStockInput } from './stock';
import { createWarehouse, getWarehouse, listWarehouses, updateWarehouse, type CreateWarehouseInput, type UpdateWarehouseInput } from './warehouses';

export type { StockDeps } from './deps';
export type { HoldStockInput, HoldResult, HeldLine } from './holds';
export type { AdjustStockInput, ProductStock, SetStockInput, StockLevelPage } from './stock';
export type { CreateWarehouseInput, UpdateWarehouseInput } from './warehouses';

/** The stock use cases bound to their dependencies; what resolvers, the consumer and the seeder call. */
export class StockUseCases {
  constructor(readonly deps: StockDeps) {}

  listWarehouses(identity: Identity, teamCode?: string | null) {
    return listWarehouses(this.deps, identity, teamCode);
  }
  getWarehouse(identity: Identity, id: string) {
    return getWarehouse(this.deps, identity, id);
  }
  createWarehouse(identity: Identity, input: CreateWarehouseInput) {
    return createWarehouse(this.deps, identity, input);
  }
  updateWarehouse(identity: Identity, id: string, input: UpdateWarehouseInput) {
    return updateWarehouse(this.deps, identity, id, input);
  }
  setStock(identity: Identity, input: SetStockInput) {
    return setStock(this.deps, identity, input);
  }
  adjustStock(identity: Identity, input: AdjustStockInput) {
    return adjustStock(this.deps, identity, input);
  }
  productStocks(identity: Identity, uuids: readonly string[]) {
    return productStocks(this.deps, identity, uuids);
  }
  warehouseStockOf(identity: Identity, stock: ProductStock) {
    return warehouseStockOf(identity, stock);
  }
  stockLevels(identity: Identity, args: { teamCode?: string | null; after?: string | null; first?: number | null }) {
    return stockLevels(this.deps, identity, args);
  }
  stockLevelsOf(identity: Identity, teamCode: string, productUuids: readonly string[]) {
    return stockLevelsOf(this.deps, identity, teamCode, productUuids);
  }
  stockAdjustments(identity: Identity, productUuid: string, first?: number | null) {
    return stockAdjustments(this.deps, identity, productUuid, first);
  }
  holdStock(identity: Identity, input: HoldStockInput) {
    return holdStock(this.deps, identity, input);
  }
  releaseHolds(identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null) {
    return releaseHolds(this.deps, identity, orderUuid, locationCodes, fence);
  }
  reinstateHolds(identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null) {
    return reinstateHolds(this.deps, identity, orderUuid, holdIds, fence);
  }
  restoreHolds(identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null) {
    return restoreHolds(this.deps, identity, orderUuid, holdIds, fence);
  }
  consumeHolds(identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null) {
    return consumeHolds(this.deps, identity, orderUuid, locationCodes, fence);
  }
  returnHolds(identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null) {
    return returnHolds(this.deps, identity, orderUuid, locationCodes, fence);
  }
  reconsumeHolds(identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null) {
    return reconsumeHolds(this.deps, identity, orderUuid, holdIds, fence);
  }

  unconsumeHolds(identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null) {
    return unconsumeHolds(this.deps, identity, orderUuid, holdIds, fence);
  }
  fenceOrderHolds(identity: Identity, orderUuid: string, fence: string) {
    return fenceOrderHolds(this.deps, identity, orderUuid, fence);
  }
  orderHolds(identity: Identity, orderUuid: string) {
    return orderHolds(this.deps, identity, orderUuid);
  }
  applyCatalogProductEvent(event: EventEnvelope) {
    return applyCatalogProductEvent(this.deps, event);
  }
}
