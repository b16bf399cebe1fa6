import { STATUS_CODES } from 'node:http';

/** Prefix of every problem type URI; the contract names types by their last path segment. */
export const PROBLEM_TYPE_BASE = 'https://docs.print-fulfilment.dev/problems/';

/**
 * The closed set of problem types. Each entry fixes the HTTP status; `typed: false` marks the one
 * body the contract says carries no `type` (409 when `reserve: true` could not hold stock).
 */
export const PROBLEM_TYPES = {
  /** A request that is not valid HTTP (the parser gave up on it, or its Host is missing or invalid). */
  'bad-request': { status: 400, typed: true },
  'request-timeout': { status: 408, typed: true },
  /** An `Expect` other than `100-continue`. */
  'expectation-failed': { status: 417, typed: true },
  'headers-too-large': { status: 431, typed: true },
  /** A request line longer than the server reads (RFC 9112 section 3: 414, not 431). */
  'uri-too-long': { status: 414, typed: true },
  'validation-failed': { status: 422, typed: true },
  unauthenticated: { status: 401, typed: true },
  'channel-inactive': { status: 403, typed: true },
  'team-inactive': { status: 403, typed: true },
  'standard-channel': { status: 403, typed: true },
  forbidden: { status: 403, typed: true },
  'not-found': { status: 404, typed: true },
  /** The path exists but not with this method (the edge adds an `Allow` header). */
  'method-not-allowed': { status: 405, typed: true },
  'order-already-confirmed': { status: 409, typed: true },
  'order-not-updatable': { status: 409, typed: true },
  conflict: { status: 409, typed: true },
  'stock-unavailable': { status: 409, typed: false },
  'amendment-refused': { status: 409, typed: true },
  'order-state-forbids': { status: 428, typed: true },
  'rate-limited': { status: 429, typed: true },
  internal: { status: 500, typed: true },
  'bad-gateway': { status: 502, typed: true },
  unavailable: { status: 503, typed: true },
} as const;

export type ProblemTypeName = keyof typeof PROBLEM_TYPES;

/** One offending input field of a 422, named by its JSON path (`orderLines[7].product.sku`). */
export interface Violation {
  property: string;
  message: string;
}

export interface ProblemInit {
  detail: string;
  violations?: Violation[];
  /** Members the contract adds to particular problems (orderUuid, orderStatus, data, reason, ...). */
  extensions?: Record<string, unknown>;
}

/** Members whose values come from the problem itself, never from its extensions. */
const STANDARD_MEMBERS: ReadonlySet<string> = new Set(['type', 'title', 'status', 'detail', 'violations']);

/** The RFC 7807 body as it goes on the wire. */
export interface ProblemBody {
  type?: string;
  title: string;
  status: number;
  detail: string;
  violations?: Violation[];
  reference?: string;
  [member: string]: unknown;
}

/**
 * A typed, expected failure. Subgraphs throw it; it crosses the gateway in GraphQL error
 * extensions; the edge turns it into an `application/problem+json` response. No handler builds
 * an error body by hand.
 */
export class Problem extends Error {
  readonly status: number;
  readonly violations?: Violation[];
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly problemType: ProblemTypeName,
    init: ProblemInit,
  ) {
    super(init.detail);
    this.name = 'Problem';
    this.status = PROBLEM_TYPES[problemType].status;
    if (init.violations) this.violations = init.violations;
    this.extensions = init.extensions ?? {};
  }

  toBody(): ProblemBody {
    const body: ProblemBody = {
      ...(PROBLEM_TYPES[this.problemType].typed ? { type: problemTypeUri(this.problemType) } : {}),
      title: statusTitle(this.status),
      status: this.status,
      detail: this.message,
    };
    if (this.violations) body.violations = this.violations;
    // Contract members come after the standard ones and never overwrite or add one: an untyped
    // body stays untyped, and only a 422 lists violations.
    for (const [k, v] of Object.entries(this.extensions)) if (!STANDARD_MEMBERS.has(k) && !(k in body)) body[k] = v;
    return body;
  }

  /** The shape carried in `extensions.problem` of a GraphQL error. */
  toTransport(): ProblemTransport {
    return {
      problemType: this.problemType,
      detail: this.message,
      ...(this.violations ? { violations: this.violations } : {}),
      extensions: this.extensions,
    };
  }

  static fromTransport(t: ProblemTransport): Problem {
    return new Problem(t.problemType, {
      detail: t.detail,
      ...(t.violations ? { violations: t.violations } : {}),
      extensions: t.extensions,
    });
  }

  static validation(violations: Violation[], detail = 'The request is not valid.'): Problem {
    return new Problem('validation-failed', { detail, violations });
  }

  static notFound(detail: string): Problem {
    return new Problem('not-found', { detail });
  }
}

export interface ProblemTransport {
  problemType: ProblemTypeName;
  detail: string;
  violations?: Violation[];
  extensions: Record<string, unknown>;
}

export function isProblemTransport(value: unknown): value is ProblemTransport {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.problemType === 'string' && v.problemType in PROBLEM_TYPES && typeof v.detail === 'string';
}

export function problemTypeUri(name: ProblemTypeName): string {
  return PROBLEM_TYPE_BASE + name;
}

/** RFC 7807 `title`: the reason phrase of the status (429 -> "Too Many Requests"). */
export function statusTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}
