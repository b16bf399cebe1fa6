import type { Identity } from '@pf/platform/identity';
import {
  createShippingMethod,
  deleteShippingMethod,
  updateShippingMethod,
  type CreateShippingMethodInput,
  type UpdateShippingMethodInput,
} from './change-shipping-methods';
import { createProduct, type CreateProductInput } from './create-product';
import type { CatalogDeps } from './deps';
import { getProduct, listProducts, productPage, resolveProductReference, validateSkus, type ProductListFilter } from './read-products';
import { getShippingMethod, getShippingMethods } from './read-shipping-methods';
import { deleteProduct, updateProduct, type UpdateProductInput } from './update-product';

export type { CatalogDeps } from './deps';
export type { CreateProductInput, UpdateProductInput, CreateShippingMethodInput, UpdateShippingMethodInput, ProductListFilter };
export type { ProductConnection, ProductPage } from './read-products';

/** The catalog use cases bound to their dependencies; what resolvers and the seeder call. */
export class CatalogUseCases {
  constructor(private readonly deps: CatalogDeps) {}

  createProduct(identity: Identity, input: CreateProductInput) {
    return createProduct(this.deps, identity, input);
  }
  updateProduct(identity: Identity, uuid: string, input: UpdateProductInput, expectedVersion?: number | null) {
    return updateProduct(this.deps, identity, uuid, input, expectedVersion);
  }
  deleteProduct(identity: Identity, uuid: string, expectedVersion?: number | null) {
    return deleteProduct(this.deps, identity, uuid, expectedVersion);
  }
  getProduct(identity: Identity, uuid: string, includeDeleted?: boolean | null) {
    return getProduct(this.deps, identity, uuid, includeDeleted);
  }
  resolveProductReference(identity: Identity, uuid: string) {
    return resolveProductReference(this.deps, identity, uuid);
  }
  listProducts(identity: Identity, args: Parameters<typeof listProducts>[2]) {
    return listProducts(this.deps, identity, args);
  }
  productPage(identity: Identity, args: Parameters<typeof productPage>[2]) {
    return productPage(this.deps, identity, args);
  }
  validateSkus(identity: Identity, skus: string[], teamCode?: string | null) {
    return validateSkus(this.deps, identity, skus, teamCode);
  }
  createShippingMethod(identity: Identity, input: CreateShippingMethodInput) {
    return createShippingMethod(this.deps, identity, input);
  }
  updateShippingMethod(identity: Identity, code: string, input: UpdateShippingMethodInput) {
    return updateShippingMethod(this.deps, identity, code, input);
  }
  deleteShippingMethod(identity: Identity, code: string) {
    return deleteShippingMethod(this.deps, identity, code);
  }
  getShippingMethods(identity: Identity, args: Parameters<typeof getShippingMethods>[2]) {
    return getShippingMethods(this.deps, identity, args);
  }
  getShippingMethod(identity: Identity, code: string, teamCode?: string | null) {
    return getShippingMethod(this.deps, identity, code, teamCode);
  }
}
