import { paginate, pageUrls, type PageFacts } from '../../domain/pagination';
import type { MeasureFields, ProductFields, ProductPageFields } from './operation';

const MEASURES = ['weight', 'length', 'width', 'depth'] as const;

type Dimensions = Partial<Record<(typeof MEASURES)[number], MeasureFields>>;

/**
 * The product resource (OpenAPI `Product`). `dimensions` is an object of the measures the product
 * has, or `[]` (an empty JSON array, spec section 2) when it has none.
 */
export function toProductResource(p: ProductFields) {
  return {
    uuid: p.uuid,
    sku: p.sku,
    name: p.name,
    activeState: p.activeState,
    podEnabled: p.podEnabled,
    podApproved: p.podApproved,
    dimensions: toDimensions(p.dimensions),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

function toDimensions(d: ProductFields['dimensions']): Dimensions | [] {
  if (!d) return [];
  const out: Dimensions = {};
  for (const key of MEASURES) {
    const m = d[key];
    if (m) out[key] = { measurement: m.measurement, unit: m.unit };
  }
  return Object.keys(out).length > 0 ? out : [];
}

/** What the list was asked for, repeated in every pagination link. */
export interface ProductListChoices {
  /** Only when the client filtered. */
  activeState: string | undefined;
  perPage: number;
}

/** The `GET /products` body: `data`, top-level `links` and Laravel-style `meta` (OpenAPI `ProductList`). */
export function toProductList(page: ProductPageFields, listUrl: string, choices: ProductListChoices) {
  const facts: PageFacts = {
    page: page.page,
    perPage: page.perPage,
    total: page.total,
    lastPage: page.lastPage,
    from: page.from,
    to: page.to,
  };
  const urlOf = pageUrls(listUrl, [
    ['active-state', choices.activeState],
    ['per-page', choices.perPage],
  ]);
  const { links, meta } = paginate(facts, listUrl, urlOf);
  return { data: page.items.map(toProductResource), links, meta };
}
