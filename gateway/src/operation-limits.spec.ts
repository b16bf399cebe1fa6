import { buildSchema, parse, validate } from 'graphql';
import { DEFAULT_OPERATION_LIMITS, operationLimitRules } from './operation-limits';

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

  it('refuses an operation whose cost is over the limit', () => {
    const fields = Array.from({ length: 40 }, (_, i) => `f${i}`);
    const wide = buildSchema(`type Row { ${fields.map((f) => `${f}: String`).join(' ')} } type Query { rows: [Row!]! }`);
    const cost = (n: number) => validate(wide, parse(`{ rows { ${fields.slice(0, n).join(' ')} } }`), operationLimitRules({ ...limits, maxCost: 40 })).map((e) => e.message);
    expect(cost(10)).toEqual([]);
    expect(cost(40)).toEqual([expect.stringMatching(/^Query Cost limit of 40 exceeded/)]);
  });
});
