import { readFileSync } from 'node:fs';
import path from 'node:path';
import { env, loadConfig } from '@pf/platform/config';

/** One entry of `gateway/subgraphs.json`, the one list of subgraphs. */
export interface SubgraphEntry {
  name: string;
  /** SDL files, relative to the repository root (read by scripts/compose-supergraph.mjs). */
  sdl: string[];
  /** Default URL, composed into the supergraph. */
  url: string;
  /** Environment variable that overrides `url` at run time. */
  urlEnv: string;
}

/** The gateway package root: the same from src/ (jest) and dist/ (built). */
const gatewayRoot = path.resolve(__dirname, '..');

export const SUBGRAPH_LIST_PATH = path.join(gatewayRoot, 'subgraphs.json');

/** The committed supergraph, written by `npm run compose`. */
export const DEFAULT_SUPERGRAPH_PATH = path.join(gatewayRoot, 'supergraph.graphql');

export function readSubgraphList(file: string = SUBGRAPH_LIST_PATH): SubgraphEntry[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { subgraphs?: unknown };
  if (!Array.isArray(parsed.subgraphs)) throw new Error(`${file}: "subgraphs" must be an array`);
  return parsed.subgraphs.map((entry: Partial<SubgraphEntry>, i) => {
    const { name, sdl, url, urlEnv } = entry;
    if (typeof name !== 'string' || typeof url !== 'string' || typeof urlEnv !== 'string' || !Array.isArray(sdl)) {
      throw new Error(`${file}: subgraphs[${i}] needs name, sdl, url and urlEnv`);
    }
    return { name, sdl, url, urlEnv };
  });
}

/** Config shape of the subgraph URLs: one variable per subgraph, defaulting to the list's URL. */
export function subgraphUrlShape(list: SubgraphEntry[] = readSubgraphList()) {
  return Object.fromEntries(list.map((s) => [s.urlEnv, env.url(s.url)]));
}

/**
 * Each subgraph's URL: its variable (`SUBGRAPH_ACCOUNTS_URL`, ...) when set, otherwise the list's
 * default. A malformed URL fails with a message naming the variable.
 */
export function subgraphUrlsFromEnv(
  source: NodeJS.ProcessEnv,
  list: SubgraphEntry[] = readSubgraphList(),
): Record<string, string> {
  return subgraphUrlsOf(loadConfig(subgraphUrlShape(list), source) as Record<string, string>, list);
}

/** Subgraph name -> URL, from a validated config holding the URL variables. */
export function subgraphUrlsOf(cfg: Record<string, unknown>, list: SubgraphEntry[] = readSubgraphList()): Record<string, string> {
  return Object.fromEntries(list.map((s) => [s.name, cfg[s.urlEnv] as string]));
}
