import { env, loadConfig } from '@pf/platform/config';
import { DEFAULT_OPERATION_LIMITS } from './operation-limits';
import { DEFAULT_SUPERGRAPH_PATH, readSubgraphList, subgraphUrlShape, subgraphUrlsOf } from './subgraphs';

/** The gateway's own settings, read from the environment (ServiceDeps.env). */
export const gatewayConfigShape = {
  /** The composed supergraph file; by default the committed gateway/supergraph.graphql. */
  SUPERGRAPH_PATH: env.string(DEFAULT_SUPERGRAPH_PATH),
  /** Schema introspection through the gateway (still only with a valid identity JWT). */
  GATEWAY_INTROSPECTION: env.bool(false),
  /** Most keep-alive sockets the gateway holds open to one subgraph. */
  GATEWAY_SUBGRAPH_CONNECTIONS: env.int(128, 1, 10_000),
  /** Longest wait for a subgraph's response headers, and for its body. */
  GATEWAY_SUBGRAPH_TIMEOUT_MS: env.int(30_000, 100, 600_000),
  /** Most aliases in one operation (a bigger one is refused before any subgraph is asked). */
  GATEWAY_MAX_ALIASES: env.int(DEFAULT_OPERATION_LIMITS.maxAliases, 1, 10_000),
  /** Deepest selection in one operation. */
  GATEWAY_MAX_DEPTH: env.int(DEFAULT_OPERATION_LIMITS.maxDepth, 2, 1_000),
  /** Highest cost of one back-office operation with its variables: 2 per object field, 1 per scalar, ×1.5 per level, a list field's by the page it asks for. */
  GATEWAY_MAX_COST: env.int(DEFAULT_OPERATION_LIMITS.maxCost, 10, 10_000_000),
  /** Most lexical tokens in one document. */
  GATEWAY_MAX_TOKENS: env.int(DEFAULT_OPERATION_LIMITS.maxTokens, 100, 10_000_000),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

/**
 * Validated gateway settings, with each subgraph's URL from its variable in gateway/subgraphs.json
 * (`SUBGRAPH_ACCOUNTS_URL`, ...), defaulting to the URL in that list.
 */
export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  const list = readSubgraphList();
  // One validation for all variables, so every bad one is named at once.
  const cfg = loadConfig({ ...gatewayConfigShape, ...subgraphUrlShape(list) }, source);
  return {
    SUPERGRAPH_PATH: cfg.SUPERGRAPH_PATH,
    GATEWAY_INTROSPECTION: cfg.GATEWAY_INTROSPECTION,
    GATEWAY_SUBGRAPH_CONNECTIONS: cfg.GATEWAY_SUBGRAPH_CONNECTIONS,
    GATEWAY_SUBGRAPH_TIMEOUT_MS: cfg.GATEWAY_SUBGRAPH_TIMEOUT_MS,
    operationLimits: {
      maxAliases: cfg.GATEWAY_MAX_ALIASES,
      maxDepth: cfg.GATEWAY_MAX_DEPTH,
      maxCost: cfg.GATEWAY_MAX_COST,
      maxTokens: cfg.GATEWAY_MAX_TOKENS,
    },
    subgraphUrls: subgraphUrlsOf(cfg, list),
  };
}
