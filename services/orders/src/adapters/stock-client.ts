import { Pool } from 'undici';
import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';
import { isProblemTransport, Problem } from '@pf/platform/problems';
import type { HeldLine } from '../domain/fulfilments';

export interface HoldLine {
  lineNumber: number;
  productUuid: string;
  quantity: number;
}

export interface Shortage {
  productUuid: string;
  sku: string | null;
  requested: number;
  available: number;
}

export type HoldOutcome =
  /** `previousHoldIds`: the order's placed holds before (restoreHolds with them undoes the hold). */
  | { kind: 'held'; lines: HeldLine[]; previousHoldIds: string[] }
  | { kind: 'short'; shortages: Shortage[] };

/**
 * What orders needs from the stock service: its hold API. Holding again for the same order
 * replaces the order's placed holds atomically; releasing, consuming or returning again does
 * nothing.
 */
export interface StockApi {
  holdStock(input: { teamCode: string; orderUuid: string; lines: HoldLine[] }): Promise<HoldOutcome>;
  /**
   * Releases the order's placed holds: all, or those at these supplier locations (a draft
   * fulfilment that ends unsent); the ids of the holds released (none when none were placed).
   */
  releaseHolds(orderUuid: string, locationCodes?: readonly string[] | null): Promise<string[]>;
  /** Undoes releaseHolds for these holds (the change that released them did not commit). */
  reinstateHolds(orderUuid: string, holdIds: readonly string[]): Promise<void>;
  /**
   * Undoes holdStock (the change that held did not commit): the order's placed holds become
   * exactly `holdIds`, its answer's previousHoldIds. A Problem `stock-unavailable` when stock
   * sold since cannot be held again (nothing changed).
   */
  restoreHolds(orderUuid: string, holdIds: readonly string[]): Promise<void>;
  /** Consumes the order's placed holds (all, or at these supplier locations); the ids of the holds consumed. */
  consumeHolds(orderUuid: string, locationCodes?: readonly string[] | null): Promise<string[]>;
  /** Undoes consumeHolds for these holds (the change that sent them did not commit): placed again. */
  unconsumeHolds(orderUuid: string, holdIds: readonly string[]): Promise<void>;
  /**
   * Gives the stock consumed for the order's fulfilments at these supplier locations (sent, never
   * dispatched) back to on hand; the ids of the holds returned (none when nothing was left to return).
   */
  returnHolds(orderUuid: string, locationCodes: readonly string[]): Promise<string[]>;
  /** Undoes returnHolds for these holds (the change that returned them did not commit). */
  reconsumeHolds(orderUuid: string, holdIds: readonly string[]): Promise<void>;
  /** Every hold of the order, whatever its status (the stock repair compares them with the order). */
  orderHolds(orderUuid: string): Promise<OrderHold[]>;
  /**
   * The stock repair's first step: raises the order's fence in stock to this API's token (see
   * `fenced`) and answers every hold of the order. From then on, calls of the order's earlier
   * changes (lower tokens, or none) are refused there: what the repair read is what it acts on.
   */
  fenceOrderHolds(orderUuid: string): Promise<OrderHold[]>;
  /**
   * This API with every call carrying `fence`, the calling change's token (the stock-step
   * journal's, or the repair's): stock refuses it once a later change has raised the order's fence.
   */
  fenced(fence: string): StockApi;
}

/** One hold of an order as the stock service keeps it. */
export interface OrderHold {
  id: string;
  lineNumber: number;
  quantity: number;
  status: 'PLACED' | 'RELEASED' | 'CONSUMED' | 'RETURNED';
  location: { code: string };
  releasedAt: string | null;
  consumedAt: string | null;
  returnedAt: string | null;
}

/** The stock service did not answer (down, unreachable, timed out, cut off), or refused a fenced-out change. */
export class StockUnavailableError extends Error {
  override name = 'StockUnavailableError';
  /**
   * Stock certainly did nothing: the request never left (no connection could be made), or stock
   * refused it because a later change of the order fenced this one out. Otherwise (a time-out, a
   * connection cut, an unexpected answer) whether stock did it is unknown.
   */
  readonly nothingDone: boolean;
  /**
   * Stock refused the call because a later change of the order raised its fence: that change owns
   * the order's stock now (it has put it right, or its repair failed and left the journal row for
   * the stock repair). This change must neither undo its steps nor clear its row.
   */
  readonly fencedOut: boolean;
  /**
   * Stock answered that it does not know the call (GRAPHQL_VALIDATION_FAILED: this service's
   * release is ahead of stock's, or stock was rolled back): nothing was done, and it passes once
   * the versions are in step. Waited out like an outage, but an operator's business.
   */
  readonly callUnknown: boolean;
  constructor(message: string, options?: ErrorOptions & { nothingDone?: boolean; fencedOut?: boolean; callUnknown?: boolean }) {
    super(message, options);
    this.fencedOut = options?.fencedOut ?? false;
    this.callUnknown = options?.callUnknown ?? false;
    this.nothingDone = (options?.nothingDone ?? false) || this.fencedOut || this.callUnknown;
  }
}

/**
 * The stock service answered, with an unexpected error (its bug, logged there under `reference`)
 * or an answer that is not what was asked: not an outage to wait out. Whether it did the step is
 * unknown (the failure may have come after its commit).
 */
export class StockFailedError extends Error {
  override name = 'StockFailedError';
  constructor(
    message: string,
    /** The stock service's reference of the logged error, when it gave one. */
    readonly reference?: string,
  ) {
    super(reference ? `${message} (stock's reference ${reference})` : message);
  }
}

/** Errors of a connection that was never made: the request was not sent. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const HOLD = /* GraphQL */ `
  mutation ($input: HoldStockInput!) {
    holdStock(input: $input) {
      __typename
      ... on StockHeld { lines { lineNumber productUuid quantity allocations { location { code countryCode } quantity } } previousHoldIds }
      ... on StockShort { shortages { productUuid sku requested available } }
    }
  }`;
const RELEASE = /* GraphQL */ `mutation ($orderUuid: ID!, $locationCodes: [String!], $fence: String) { releaseHolds(orderUuid: $orderUuid, locationCodes: $locationCodes, fence: $fence) { id } }`;
const REINSTATE = /* GraphQL */ `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { reinstateHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`;
const RESTORE = /* GraphQL */ `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { restoreHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`;
const CONSUME = /* GraphQL */ `mutation ($orderUuid: ID!, $locationCodes: [String!], $fence: String) { consumeHolds(orderUuid: $orderUuid, locationCodes: $locationCodes, fence: $fence) { id } }`;
const UNCONSUME = /* GraphQL */ `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { unconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`;
const RETURN = /* GraphQL */ `mutation ($orderUuid: ID!, $locationCodes: [String!], $fence: String) { returnHolds(orderUuid: $orderUuid, locationCodes: $locationCodes, fence: $fence) { id } }`;
const RECONSUME = /* GraphQL */ `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { reconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`;
const HOLD_FIELDS = 'id lineNumber quantity status location { code } releasedAt consumedAt returnedAt';
const ORDER_HOLDS = /* GraphQL */ `query ($orderUuid: ID!) { orderHolds(orderUuid: $orderUuid) { ${HOLD_FIELDS} } }`;
const FENCE_ORDER_HOLDS = /* GraphQL */ `mutation ($orderUuid: ID!, $fence: String!) { fenceOrderHolds(orderUuid: $orderUuid, fence: $fence) { ${HOLD_FIELDS} } }`;

interface GraphQLAnswer {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: { problem?: unknown; reference?: unknown; code?: unknown } }[];
}

export interface StockClientOptions {
  url: string;
  jwt: JwtSignOptions;
  timeoutMs: number;
  /** Connections kept to the stock service; calls beyond them queue. */
  connections: number;
}

/**
 * Calls the stock subgraph directly (not through the gateway: its hold API is @inaccessible
 * there) with a short-lived service identity this service signs. `fenced(token)` gives a client
 * on the same connections whose every call carries that fence token.
 */
export class StockClient implements StockApi {
  private readonly transport: StockTransport;

  constructor(
    /** Where stock is, or (a fenced client) the connections of the client it was made from. */
    opts: StockClientOptions | StockTransport,
    /** The calling change's fence token, sent with every hold mutation; null: none. */
    private readonly fence: string | null = null,
  ) {
    this.transport = opts instanceof StockTransport ? opts : new StockTransport(opts);
  }

  fenced(fence: string): StockClient {
    return new StockClient(this.transport, fence);
  }

  /** Closes the connections (service shutdown). */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private call(query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
    return this.transport.call(query, variables);
  }

  async holdStock(input: { teamCode: string; orderUuid: string; lines: HoldLine[] }): Promise<HoldOutcome> {
    let data: Record<string, any>;
    try {
      data = await this.call(HOLD, { input: { ...input, fence: this.fence } });
    } catch (err) {
      // A product the stock service does not know (yet) cannot be held: short, with nothing available.
      if (err instanceof Problem && err.problemType === 'validation-failed') {
        const unknown = new Set(
          (err.violations ?? []).map((v) => /^input\.lines\[(\d+)\]/.exec(v.property)?.[1]).filter((i): i is string => i !== undefined).map(Number),
        );
        if (unknown.size > 0) {
          return {
            kind: 'short',
            shortages: [...unknown].map((i) => ({ productUuid: input.lines[i]!.productUuid, sku: null, requested: input.lines[i]!.quantity, available: 0 })),
          };
        }
      }
      throw err;
    }
    const r = data.holdStock;
    if (r?.__typename === 'StockHeld') return { kind: 'held', lines: r.lines, previousHoldIds: r.previousHoldIds };
    if (r?.__typename === 'StockShort') return { kind: 'short', shortages: r.shortages };
    throw new StockFailedError('holdStock gave no result');
  }

  async releaseHolds(orderUuid: string, locationCodes?: readonly string[] | null): Promise<string[]> {
    const data = await this.call(RELEASE, { orderUuid, locationCodes: locationCodes ?? null, fence: this.fence });
    if (!Array.isArray(data.releaseHolds)) throw new StockFailedError('releaseHolds gave no result');
    return data.releaseHolds.map((h: { id: string }) => h.id);
  }

  async reinstateHolds(orderUuid: string, holdIds: readonly string[]): Promise<void> {
    await this.call(REINSTATE, { orderUuid, holdIds, fence: this.fence });
  }

  async restoreHolds(orderUuid: string, holdIds: readonly string[]): Promise<void> {
    await this.call(RESTORE, { orderUuid, holdIds, fence: this.fence });
  }

  async consumeHolds(orderUuid: string, locationCodes?: readonly string[] | null): Promise<string[]> {
    const data = await this.call(CONSUME, { orderUuid, locationCodes: locationCodes ?? null, fence: this.fence });
    if (!Array.isArray(data.consumeHolds)) throw new StockFailedError('consumeHolds gave no result');
    return data.consumeHolds.map((h: { id: string }) => h.id);
  }

  async unconsumeHolds(orderUuid: string, holdIds: readonly string[]): Promise<void> {
    await this.call(UNCONSUME, { orderUuid, holdIds, fence: this.fence });
  }

  async returnHolds(orderUuid: string, locationCodes: readonly string[]): Promise<string[]> {
    const data = await this.call(RETURN, { orderUuid, locationCodes, fence: this.fence });
    if (!Array.isArray(data.returnHolds)) throw new StockFailedError('returnHolds gave no result');
    return data.returnHolds.map((h: { id: string }) => h.id);
  }

  async reconsumeHolds(orderUuid: string, holdIds: readonly string[]): Promise<void> {
    await this.call(RECONSUME, { orderUuid, holdIds, fence: this.fence });
  }

  async orderHolds(orderUuid: string): Promise<OrderHold[]> {
    const data = await this.call(ORDER_HOLDS, { orderUuid });
    if (!Array.isArray(data.orderHolds)) throw new StockFailedError('orderHolds gave no result');
    return data.orderHolds as OrderHold[];
  }

  async fenceOrderHolds(orderUuid: string): Promise<OrderHold[]> {
    if (this.fence === null) throw new Error('fenceOrderHolds needs a fenced client (StockClient.fenced)');
    const data = await this.call(FENCE_ORDER_HOLDS, { orderUuid, fence: this.fence });
    if (!Array.isArray(data.fenceOrderHolds)) throw new StockFailedError('fenceOrderHolds gave no result');
    return data.fenceOrderHolds as OrderHold[];
  }
}

/** The connection to the stock subgraph: keep-alive connections and the service identity, shared by fenced clients. */
class StockTransport {
  private token?: { value: string; renewAt: number };
  /** Keep-alive connections: a hold costs one round trip, not a connection set-up (and not fetch's overhead). */
  private readonly pool: Pool;
  private readonly path: string;

  constructor(private readonly opts: StockClientOptions) {
    const url = new URL(opts.url);
    this.path = url.pathname + url.search;
    this.pool = new Pool(url.origin, { connections: opts.connections, keepAliveTimeout: 30_000, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private bearer(): string {
    const now = Date.now();
    if (!this.token || now >= this.token.renewAt) {
      this.token = {
        value: signIdentity({ kind: 'service', service: 'orders' }, this.opts.jwt),
        renewAt: now + Math.max(this.opts.jwt.expiresInSeconds * 1000 - 60_000, (this.opts.jwt.expiresInSeconds * 1000) / 2),
      };
    }
    return this.token.value;
  }

  /**
   * Problems of the stock service come back as Problems, except a refusal of a fenced-out change
   * (a StockUnavailableError: stock did nothing). No answer (no connection, a time-out, a cut, a
   * body that is no JSON: a proxy's error page) is StockUnavailableError; an answer with an
   * unexpected error, or without data, is StockFailedError.
   */
  async call(query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
    let answer: GraphQLAnswer;
    try {
      const res = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.bearer()}` },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      answer = (await res.body.json()) as GraphQLAnswer;
    } catch (err) {
      const nothingDone = NOT_CONNECTED.has((err as { code?: string }).code ?? '');
      throw new StockUnavailableError(`The stock service did not answer: ${(err as Error).message}`, { cause: err, nothingDone });
    }
    const error = answer.errors?.[0];
    if (error) {
      const problem = error.extensions?.problem;
      if (isProblemTransport(problem)) {
        const refused = Problem.fromTransport(problem);
        // Not the caller's business (nor its client's): a later change of the order took over.
        if (refused.extensions.fenced === true) throw new StockUnavailableError(`The stock service refused a fenced-out change: ${refused.message}`, { fencedOut: true });
        throw refused;
      }
      // The stock service does not know the call (a release of orders ahead of stock's, or stock
      // rolled back): nothing was done, and it passes once the versions are in step again.
      if (error.extensions?.code === 'GRAPHQL_VALIDATION_FAILED') {
        throw new StockUnavailableError(`The stock service does not know this call (its version is behind this service's): ${error.message}`, { callUnknown: true });
      }
      const reference = error.extensions?.reference;
      throw new StockFailedError(`The stock service failed: ${error.message}`, typeof reference === 'string' ? reference : undefined);
    }
    if (!answer.data) throw new StockFailedError('The stock service answered without data');
    return answer.data;
  }
}
