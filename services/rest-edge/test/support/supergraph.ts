import { readFileSync } from 'node:fs';
import path from 'node:path';
import { composeServices } from '@apollo/composition';
import { parse, Source, type DocumentNode } from 'graphql';
import { readSubgraphList } from '../../../../gateway/src/subgraphs';

const repositoryRoot = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * The supergraph composed now from every subgraph's SDL file (gateway/subgraphs.json), as
 * `npm run compose` would write it: the edge's tests then run against the subgraphs' current
 * contracts even before the committed supergraph is regenerated.
 */
export function composeSupergraph(): string {
  const subgraphs = readSubgraphList().map((s) => ({
    name: s.name,
    url: s.url,
    typeDefs: {
      kind: 'Document',
      definitions: s.sdl.flatMap((file) => parse(new Source(readFileSync(path.join(repositoryRoot, file), 'utf8'), file)).definitions),
    } as DocumentNode,
  }));
  const result = composeServices(subgraphs);
  if (result.errors) throw new Error(`supergraph composition failed:\n  ${result.errors.map((e) => e.message).join('\n  ')}`);
  return result.supergraphSdl;
}
