import { skuMatches, validateSkusViolations, VALIDATE_SKUS_MAX } from './sku-validation';

describe('validateSkus requests', () => {
  it(`take at most ${VALIDATE_SKUS_MAX} SKUs`, () => {
    expect(validateSkusViolations(Array.from({ length: VALIDATE_SKUS_MAX }, (_, i) => `S${i}`))).toEqual([]);
    expect(validateSkusViolations(Array.from({ length: VALIDATE_SKUS_MAX + 1 }, (_, i) => `S${i}`))).toEqual([
      { property: 'skus', message: expect.any(String) },
    ]);
  });

  it('name each SKU that can never be one', () => {
    expect(validateSkusViolations(['ok', '', 'x'.repeat(256), 'x'.repeat(255)]).map((v) => v.property)).toEqual(['skus[1]', 'skus[2]']);
    // Characters are code points: 255 emoji are a SKU's worth, 256 are not.
    expect(validateSkusViolations(['\u{1F4E6}'.repeat(255), '\u{1F4E6}'.repeat(256)]).map((v) => v.property)).toEqual(['skus[1]']);
  });
});

describe('matching', () => {
  const products = [
    { sku: 'A-1', uuid: '11111111-1111-4111-8111-111111111111', activeState: 'active' as const },
    { sku: 'B-2', uuid: '22222222-2222-4222-8222-222222222222', activeState: 'pre-order' as const },
    { sku: null, uuid: '33333333-3333-4333-8333-333333333333', activeState: 'active' as const },
  ];

  it('answers each SKU asked, in order, duplicates included, exactly (case counts)', () => {
    expect(skuMatches(['B-2', 'a-1', 'A-1', 'B-2', 'C-3'], products)).toEqual([
      { sku: 'B-2', matched: true, productUuid: products[1]!.uuid, activeState: 'pre-order' },
      { sku: 'a-1', matched: false, productUuid: null, activeState: null },
      { sku: 'A-1', matched: true, productUuid: products[0]!.uuid, activeState: 'active' },
      { sku: 'B-2', matched: true, productUuid: products[1]!.uuid, activeState: 'pre-order' },
      { sku: 'C-3', matched: false, productUuid: null, activeState: null },
    ]);
  });

  it('answers an empty question with an empty answer', () => {
    expect(skuMatches([], products)).toEqual([]);
  });
});
