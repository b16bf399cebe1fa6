import type { Identity } from '@pf/platform/identity';
import { createPrismaClient } from './db';
import type { ActiveState, Product } from './domain/model';
import type { CreateProductInput, CreateShippingMethodInput } from './use-cases';
import { CatalogUseCases } from './use-cases';

export interface DemoCatalogOptions {
  databaseUrl: string;
  teamCode: string;
}

/** What the stock seeder needs to know about each product. */
export interface DemoProduct {
  uuid: string;
  sku: string | null;
  name: string;
  activeState: ActiveState;
  podEnabled: boolean;
  podApproved: boolean;
}

export interface DemoCatalog {
  /** False when the team already had products: nothing was created. */
  created: boolean;
  /** The team's live products (the ones just created, or the ones it already had), oldest first. */
  products: DemoProduct[];
  /** Codes of the team's active shipping methods. */
  shippingMethodCodes: string[];
}

const cm = (measurement: number) => ({ measurement, unit: 'cm' });
const mm = (measurement: number) => ({ measurement, unit: 'mm' });
const g = (measurement: number) => ({ measurement, unit: 'g' });

/**
 * A print shop's catalogue: all three active states, products with and without SKU and
 * dimensions (and with only some measures), and print-on-demand products in every combination of
 * the two flags (only approved and enabled counts as unlimited stock in rule S1).
 */
export const DEMO_PRODUCTS: CreateProductInput[] = [
  // Posters and art prints
  { sku: 'PST-A3-MOUNTAIN', name: 'Mountain Sunrise Poster A3', description: 'Matte 200 gsm poster, 297 x 420 mm.', dimensions: { weight: g(90), length: mm(420), width: mm(297), depth: mm(1) } },
  { sku: 'PST-A2-MOUNTAIN', name: 'Mountain Sunrise Poster A2', dimensions: { weight: g(160), length: mm(594), width: mm(420), depth: mm(1) } },
  { sku: 'PST-A1-MOUNTAIN', name: 'Mountain Sunrise Poster A1', activeState: 'inactive', dimensions: { weight: g(310), length: mm(841), width: mm(594), depth: mm(1) } },
  { sku: 'PST-A3-CITYSCAPE', name: 'Night Cityscape Poster A3', podEnabled: true, podApproved: true, dimensions: { weight: g(90), length: mm(420), width: mm(297), depth: mm(1) } },
  { sku: 'PST-A2-BOTANICAL', name: 'Botanical Study Poster A2', podEnabled: true, podApproved: true, dimensions: { weight: g(160), length: mm(594), width: mm(420), depth: mm(1) } },
  { sku: 'ART-GICLEE-WAVES', name: 'Giclée Print "Waves" 30 x 40 cm', description: 'Archival pigment print on cotton rag.', dimensions: { weight: g(120), length: cm(40), width: cm(30), depth: cm(0.1) } },
  { sku: 'ART-GICLEE-DUNES', name: 'Giclée Print "Dunes" 30 x 40 cm', activeState: 'pre-order', dimensions: { weight: g(120), length: cm(40), width: cm(30), depth: cm(0.1) } },
  { sku: 'ART-LTD-ORBIT', name: 'Limited Edition Print "Orbit" (signed)', activeState: 'pre-order', description: 'Edition of 50, ships after the signing session.' },
  // Canvas and frames
  { sku: 'CNV-40X60-FOREST', name: 'Forest Canvas 40 x 60 cm', podEnabled: true, podApproved: true, dimensions: { weight: { measurement: 1.2, unit: 'kg' }, length: cm(60), width: cm(40), depth: cm(2) } },
  { sku: 'CNV-60X90-FOREST', name: 'Forest Canvas 60 x 90 cm', podEnabled: true, podApproved: false, dimensions: { weight: { measurement: 2.1, unit: 'kg' }, length: cm(90), width: cm(60), depth: cm(2) } },
  { sku: 'CNV-30X30-ABSTRACT', name: 'Abstract Square Canvas 30 x 30 cm', dimensions: { weight: g(650), length: cm(30), width: cm(30), depth: cm(2) } },
  { sku: 'FRM-A3-OAK', name: 'Oak Frame A3', dimensions: { weight: { measurement: 1.4, unit: 'kg' }, length: cm(45), width: cm(32), depth: cm(2.5) } },
  { sku: 'FRM-A3-BLACK', name: 'Black Frame A3', activeState: 'inactive', dimensions: { weight: { measurement: 1.3, unit: 'kg' }, length: cm(45), width: cm(32), depth: cm(2.5) } },
  // Apparel
  { sku: 'TSH-ORG-WHT-S', name: 'Organic T-shirt White S', podEnabled: true, podApproved: true, dimensions: { weight: g(150) } },
  { sku: 'TSH-ORG-WHT-M', name: 'Organic T-shirt White M', podEnabled: true, podApproved: true, dimensions: { weight: g(165) } },
  { sku: 'TSH-ORG-WHT-L', name: 'Organic T-shirt White L', podEnabled: true, podApproved: true, dimensions: { weight: g(180) } },
  { sku: 'TSH-ORG-BLK-M', name: 'Organic T-shirt Black M', podEnabled: true, podApproved: false, dimensions: { weight: g(165) } },
  { sku: 'HOOD-NAVY-M', name: 'Heavyweight Hoodie Navy M', podEnabled: false, podApproved: true, dimensions: { weight: { measurement: 1.1, unit: 'lb' } } },
  { sku: 'HOOD-NAVY-L', name: 'Heavyweight Hoodie Navy L', activeState: 'pre-order', podEnabled: false, podApproved: true, dimensions: { weight: { measurement: 1.2, unit: 'lb' } } },
  // Drinkware and accessories
  { sku: 'MUG-11OZ-LOGO', name: 'Ceramic Mug 11 oz', dimensions: { weight: { measurement: 12.5, unit: 'oz' }, length: { measurement: 3.8, unit: 'in' }, width: { measurement: 3.2, unit: 'in' }, depth: { measurement: 3.2, unit: 'in' } } },
  { sku: 'MUG-15OZ-LOGO', name: 'Ceramic Mug 15 oz', podEnabled: true, podApproved: true, dimensions: { weight: { measurement: 15, unit: 'oz' }, length: { measurement: 4.5, unit: 'in' } } },
  { sku: 'MUG-ENAMEL-CAMP', name: 'Enamel Camping Mug', activeState: 'inactive', dimensions: { weight: g(180), length: cm(8), width: cm(12), depth: cm(8) } },
  { sku: 'TOTE-NAT-CLASSIC', name: 'Cotton Tote Bag Natural', dimensions: { weight: g(140), length: cm(42), width: cm(38) } },
  { sku: 'TOTE-BLK-CLASSIC', name: 'Cotton Tote Bag Black', podEnabled: true, podApproved: false },
  // Stationery
  { sku: 'NB-A5-DOT', name: 'A5 Dotted Notebook', dimensions: { weight: g(280), length: mm(210), width: mm(148), depth: mm(12) } },
  { sku: 'NB-A5-LINED', name: 'A5 Lined Notebook', activeState: 'pre-order', dimensions: { weight: g(280), length: mm(210), width: mm(148), depth: mm(12) } },
  { sku: 'CARD-BDAY-FOX', name: 'Birthday Card "Fox"', dimensions: { weight: g(20), length: cm(15), width: cm(15), depth: mm(1) } },
  { sku: 'CARD-THANKS-SET6', name: 'Thank You Cards, set of 6', dimensions: { weight: g(110) } },
  { sku: 'PC-CITY-SET10', name: 'City Postcards, set of 10', activeState: 'inactive' },
  { sku: 'STK-LOGO-DIECUT', name: 'Die-cut Logo Sticker', podEnabled: false, podApproved: true, dimensions: { weight: g(2), length: cm(7.5), width: cm(7.5) } },
  { sku: 'CAL-2027-WALL', name: 'Wall Calendar 2027', activeState: 'pre-order', dimensions: { weight: g(450), length: mm(420), width: mm(297), depth: mm(5) } },
  { sku: 'PB-HARD-20P', name: 'Hardcover Photo Book, 20 pages', podEnabled: true, podApproved: true, dimensions: { weight: g(700), length: cm(30), width: cm(30), depth: cm(1.5) } },
  // Without a SKU: made to order, sample, or not yet coded by the merchant
  { sku: null, name: 'Custom Commission (quote on request)', description: 'Priced individually; not orderable by SKU.' },
  { sku: null, name: 'Paper Sample Pack', dimensions: { weight: g(60), length: mm(210), width: mm(148) } },
  { sku: null, name: 'Gift Wrapping', activeState: 'inactive' },
  { sku: null, name: 'Poster Tube (new design)', activeState: 'pre-order', podEnabled: true, podApproved: false, dimensions: { length: cm(65), width: cm(8), depth: cm(8) } },
];

const EU = ['AT', 'BE', 'DE', 'DK', 'ES', 'FI', 'FR', 'IE', 'IT', 'LU', 'NL', 'PL', 'PT', 'SE'];

export const DEMO_SHIPPING_METHODS: CreateShippingMethodInput[] = [
  { code: 'standard', name: 'Standard delivery', carrier: 'Royal Mail', countryCodes: ['GB'], serviceLevel: 'standard', tracked: false, minDeliveryDays: 2, maxDeliveryDays: 4, priority: 10 },
  { code: 'express', name: 'Express next day', carrier: 'DPD', countryCodes: ['GB'], serviceLevel: 'express', tracked: true, minDeliveryDays: 1, maxDeliveryDays: 1, priority: 20 },
  { code: 'tracked-eu', name: 'Tracked EU', carrier: 'DHL', countryCodes: EU, serviceLevel: 'standard', tracked: true, minDeliveryDays: 3, maxDeliveryDays: 6, priority: 30 },
  { code: 'economy-intl', name: 'Economy international', carrier: 'Asendia', countryCodes: [], serviceLevel: 'economy', tracked: false, minDeliveryDays: 7, maxDeliveryDays: 21, priority: 90 },
];

const demoProduct = (p: Product): DemoProduct => ({
  uuid: p.uuid,
  sku: p.sku,
  name: p.name,
  activeState: p.activeState,
  podEnabled: p.podEnabled,
  podApproved: p.podApproved,
});

/**
 * Gives a team a realistic demo catalogue (36 products, 4 shipping methods) through the ordinary
 * use cases, so every product and method has its events in the outbox like any other. Idempotent:
 * a team that already has products (even deleted ones) is left alone, and its live products are
 * returned so that a later seeder (stock) can still find them.
 */
export async function seedDemoCatalog(opts: DemoCatalogOptions): Promise<DemoCatalog> {
  const merchant: Identity = { kind: 'backoffice', teamCode: opts.teamCode, userId: 'catalog-demo-seed' };
  const prisma = createPrismaClient(opts.databaseUrl, 2);
  try {
    const catalog = new CatalogUseCases({ prisma });
    const existing = await catalog.listProducts(merchant, { first: 1, filter: { includeDeleted: true } });
    let created = false;
    if (existing.edges.length === 0) {
      for (const input of DEMO_PRODUCTS) await catalog.createProduct(merchant, input);
      for (const input of DEMO_SHIPPING_METHODS) {
        if (!(await catalog.getShippingMethod(merchant, input.code))) await catalog.createShippingMethod(merchant, input);
      }
      created = true;
    }
    const products: DemoProduct[] = [];
    for (let page = 1; ; page++) {
      const { items, lastPage } = await catalog.productPage(merchant, { page, perPage: 100 });
      products.push(...items.map(demoProduct));
      if (page >= lastPage) break;
    }
    const methods = await catalog.getShippingMethods(merchant, {});
    return { created, products, shippingMethodCodes: methods.map((m) => m.code) };
  } finally {
    await prisma.$disconnect();
  }
}
