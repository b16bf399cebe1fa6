import { buildSchema, parse, validate } from 'graphql';
import { DEFAULT_OPERATION_LIMITS, operationCost, operationLimitRules } from './operation-limits';

describe('operation limits', () => {
  const schema = buildSchema(`
    type Node { name: String, child: Node, children: [Node!]! }
    type Query { node: Node, nodes: [Node!]! }
  `);
  const limits = { ...DEFAULT_OPERATION_LIMITS, maxAliases: 3, maxDepth: 4, maxCost: 200 };
  const refusals = (query: string) => validate(schema, parse(query), operationLimitRules(limits)).map((e) => e.message);

  it('lets an operation within every limit through', () => {
    expect(refusals('{ a: node { name } b: node { child { child { name } } } }')).toEqual([]);
  });

  it('refuses too many aliases, fragments counted where they are spread, as a validation error (not thrown)', () => {
    expect(refusals('{ a: node { name } b: node { name } c: node { name } d: node { name } }')).toEqual(['Aliases limit of 3 exceeded, found 4.']);
    expect(refusals('{ ...F ...F } fragment F on Query { a: node { name } b: node { name } }')).toEqual(['Aliases limit of 3 exceeded, found 4.']);
  });

  it('refuses selections nested deeper than the limit', () => {
    expect(refusals('{ node { child { child { child { child { name } } } } } }')).toEqual([expect.stringMatching(/^Query depth limit of 4 exceeded/)]);
  });

  describe('the cost of an operation', () => {
    const fields = Array.from({ length: 40 }, (_, i) => `f${i}`);
    const paged = buildSchema(`
      type Row { ${fields.map((f) => `${f}: String`).join(' ')} }
      type Query { rows(first: Int = 20): [Row!]! page(page: Int = 1, perPage: Int = 15): [Row!]! one: Row }
    `);
    const cost = (query: string, variables: Record<string, unknown> = {}) => operationCost(paged, parse(query), undefined, variables);

    it('is 2 per object, 1 per scalar, ×1.5 per level', () => {
      expect(cost('{ one { f0 f1 } }')).toBe(2 + 1.5 * 2);
    });

    it('grows with the page a list field asks for: a literal, a variable or the schema default alike', () => {
      const perRow = 2 + 1.5 * 2;
      expect(cost('{ rows(first: 100) { f0 f1 } }')).toBe(100 * perRow);
      expect(cost('query ($n: Int) { rows(first: $n) { f0 f1 } }', { n: 100 })).toBe(100 * perRow);
      expect(cost('query ($n: Int = 100) { rows(first: $n) { f0 f1 } }')).toBe(100 * perRow);
      expect(cost('{ rows { f0 f1 } }')).toBe(20 * perRow);
      // null asks for the default page (as the resolver reads it)
      expect(cost('{ rows(first: null) { f0 f1 } }')).toBe(20 * perRow);
      expect(cost('query ($n: Int) { rows(first: $n) { f0 f1 } }', { n: null })).toBe(20 * perRow);
      expect(cost('query ($p: Int) { page(perPage: $p) { f0 f1 } }', { p: 50 })).toBe(50 * perRow);
      expect(cost('{ page { f0 f1 } }')).toBe(15 * perRow);
    });

    it('adds up aliases; names the operation asked for among several', () => {
      const aliased = Array.from({ length: 15 }, (_, i) => `a${i}: rows(first: $n) { f0 }`).join(' ');
      expect(cost(`query ($n: Int) { ${aliased} }`, { n: 5000 })).toBe(15 * 5000 * (2 + 1.5));
      const doc = parse('query Small { one { f0 } } query Big { rows(first: 1000) { f0 } }');
      expect(operationCost(paged, doc, 'Small', {})).toBe(2 + 1.5);
      expect(operationCost(paged, doc, 'Big', {})).toBe(1000 * (2 + 1.5));
    });

    it('is not told for variables that do not fit the operation (execution refuses them)', () => {
      expect(cost('query ($n: Int) { rows(first: $n) { f0 } }', { n: 'many' })).toBeUndefined();
    });

    it('is free for introspection', () => {
      expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
    });
  });
});
