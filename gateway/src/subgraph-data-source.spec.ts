import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { createLogger } from '@pf/platform/logging';
import { SubgraphDataSource } from './subgraph-data-source';
import type { Fetcher } from './subgraph-fetcher';

const ENTITIES = 'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Product { name } } }';

/** A subgraph that answers each representation with its product's name, and records what it was sent. */
function catalog(opts: { dropLast?: boolean } = {}) {
  const sent: unknown[][] = [];
  const fetcher = (async (_url: string, init: { body: string }) => {
    const { variables } = JSON.parse(init.body) as { variables: { representations: { uuid: string }[] } };
    sent.push(variables.representations);
    const answers = variables.representations.map((r) => (r.uuid === 'gone' ? null : { name: `Product ${r.uuid}` }));
    const body = {
      data: { _entities: opts.dropLast ? answers.slice(0, -1) : answers },
      ...(variables.representations.some((r) => r.uuid === 'gone') ? { errors: [{ message: 'No such product', path: ['_entities', variables.representations.findIndex((r) => r.uuid === 'gone')] }] } : {}),
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as Fetcher;
  const source = new SubgraphDataSource({ name: 'catalog', url: 'http://catalog.test/graphql', fetcher, logger: createLogger('test', 'silent') });
  const ask = (representations: unknown[], query = ENTITIES) =>
    // The request kind's enum is not exported by @apollo/gateway: its value, as a call without a caller.
    source.process({ kind: 'health check', request: { query, variables: { representations } }, context: {} } as unknown as GraphQLDataSourceProcessOptions<any>);
  return { sent, ask };
}

describe('SubgraphDataSource: each distinct entity representation is sent once', () => {
  const product = (uuid: string) => ({ __typename: 'Product', uuid });

  it('500 lines of three products ask the subgraph for three, and every line gets its answer', async () => {
    const { sent, ask } = catalog();
    const asked = Array.from({ length: 500 }, (_, i) => product(['a', 'b', 'c'][i % 3]!));
    const res = await ask(asked);
    expect(sent).toEqual([[product('a'), product('b'), product('c')]]);
    const entities = res.data!['_entities'] as { name: string }[];
    expect(entities).toHaveLength(500);
    expect(entities.map((e) => e.name)).toEqual(asked.map((p) => `Product ${p.uuid}`));
    expect(entities[0]).not.toBe(entities[3]);
  });

  it('an error about a distinct representation is told at its first occurrence', async () => {
    const { ask } = catalog();
    const res = await ask([product('a'), product('gone'), product('a'), product('gone')]);
    expect(res.data!['_entities']).toEqual([{ name: 'Product a' }, null, { name: 'Product a' }, null]);
    expect(res.errors).toEqual([expect.objectContaining({ message: 'No such product', path: ['_entities', 1] })]);
  });

  it('representations all distinct, and other operations, go as they are', async () => {
    const { sent, ask } = catalog();
    await ask([product('a'), product('b')]);
    expect(sent).toEqual([[product('a'), product('b')]]);
  });

  it("a client's own variable called representations (a root fetch) is never deduplicated", async () => {
    const { sent, ask } = catalog();
    const twoIdenticalImports = [product('a'), product('a')];
    await ask(twoIdenticalImports, 'mutation ($representations: [ImportOrderInput!]!) { importOrders(orders: $representations) { uuid } }');
    expect(sent).toEqual([twoIdenticalImports]);
  });

  it('an answer of the wrong length is passed on as it is, for the gateway to refuse', async () => {
    const { ask } = catalog({ dropLast: true });
    const res = await ask([product('a'), product('b'), product('a')]);
    expect(res.data!['_entities']).toEqual([{ name: 'Product a' }]);
  });
});
