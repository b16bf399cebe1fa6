/**
 * The `_entities` representations a query plan sends are one per occurrence: a page of 100 orders
 * of 500 lines asking each line's product names its products 50 000 times (about 3.5 MB, over a
 * subgraph's 2 MB body limit), though they are a handful of products. The gateway sends each
 * distinct representation once and gives every occurrence its answer back.
 */

/** The distinct representations, and for each one sent, where its answer goes. */
export interface DistinctRepresentations {
  distinct: unknown[];
  /** `positionOf[i]`: the index in `distinct` of the i-th representation asked. */
  positionOf: number[];
}

/** Keeps the first of each identical representation (same members in the same order, as the plan builds them). */
export function distinctRepresentations(representations: readonly unknown[]): DistinctRepresentations {
  const seen = new Map<string, number>();
  const distinct: unknown[] = [];
  const positionOf = representations.map((r) => {
    const key = JSON.stringify(r);
    let at = seen.get(key);
    if (at === undefined) {
      at = distinct.length;
      seen.set(key, at);
      distinct.push(r);
    }
    return at;
  });
  return { distinct, positionOf };
}

/**
 * The answer for every representation asked, in order: each a copy of its distinct answer (the
 * gateway merges later fetches into each entity, so none may share objects with another).
 */
export function answersForEach(entities: readonly unknown[], positionOf: readonly number[]): unknown[] {
  return positionOf.map((at) => structuredClone(entities[at]));
}

/**
 * An error's path through `_entities` (`['_entities', 3, 'name']`) points at a distinct
 * representation: it is told at the first occurrence asked for it.
 */
export function errorPathForFirstOccurrence(path: readonly (string | number)[] | undefined, positionOf: readonly number[]): (string | number)[] | undefined {
  if (!path || path[0] !== '_entities' || typeof path[1] !== 'number') return path ? [...path] : undefined;
  const first = positionOf.indexOf(path[1]);
  return ['_entities', first === -1 ? path[1] : first, ...path.slice(2)];
}
