import { answersForEach, distinctRepresentations, errorPathForFirstOccurrence } from './entity-representations';

describe('entity representations sent once each', () => {
  const product = (uuid: string) => ({ __typename: 'Product', uuid });

  it('keeps the first of each identical representation and where each occurrence\'s answer is', () => {
    const asked = [product('a'), product('b'), product('a'), { __typename: 'Team', code: 'a' }, product('b'), product('a')];
    expect(distinctRepresentations(asked)).toEqual({
      distinct: [product('a'), product('b'), { __typename: 'Team', code: 'a' }],
      positionOf: [0, 1, 0, 2, 1, 0],
    });
    expect(distinctRepresentations([])).toEqual({ distinct: [], positionOf: [] });
  });

  it('50 000 occurrences of ten products are ten representations', () => {
    const asked = Array.from({ length: 50_000 }, (_, i) => product(`p${i % 10}`));
    const { distinct, positionOf } = distinctRepresentations(asked);
    expect(distinct).toHaveLength(10);
    expect(positionOf[12_345]).toBe(5);
  });

  it('answers every occurrence in order, each with its own copy', () => {
    const answers = answersForEach([{ name: 'Mug', stock: { level: 3 } }, { name: 'Cap' }], [0, 1, 0]);
    expect(answers).toEqual([{ name: 'Mug', stock: { level: 3 } }, { name: 'Cap' }, { name: 'Mug', stock: { level: 3 } }]);
    expect(answers[0]).not.toBe(answers[2]);
    expect((answers[0] as any).stock).not.toBe((answers[2] as any).stock);
  });

  it('an error at a distinct representation is told at its first occurrence; other paths stay', () => {
    const positionOf = [0, 1, 0, 2, 1];
    expect(errorPathForFirstOccurrence(['_entities', 1, 'name'], positionOf)).toEqual(['_entities', 1, 'name']);
    expect(errorPathForFirstOccurrence(['_entities', 2], positionOf)).toEqual(['_entities', 3]);
    expect(errorPathForFirstOccurrence(['team', 'code'], positionOf)).toEqual(['team', 'code']);
    expect(errorPathForFirstOccurrence(undefined, positionOf)).toBeUndefined();
  });
});
