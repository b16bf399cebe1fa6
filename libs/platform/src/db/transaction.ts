import type pg from 'pg';
import { queryBatch, type BatchError, type BatchStatement } from './batch';
import { withClient } from './pool';

/** What a statement answers: its rows and how many it touched. */
export interface QueryRows<R> {
  rows: R[];
  rowCount: number | null;
}

/** Something that runs a statement: a pool, a pooled client or a transaction. */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's own default row type
  query<R extends pg.QueryResultRow = any>(config: BatchStatement | string, values?: unknown[]): Promise<QueryRows<R>>;
}

/**
 * A read as data: its statements and how their results answer it, so that a transaction can send
 * several reads in one round trip (PgTransaction.reads) and a pool can run one alone (`read`).
 */
export interface Read<T> {
  readonly statements: readonly BatchStatement[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are typed by the read's own answer
  answer(results: readonly QueryRows<any>[]): T;
}

/** A read of one statement, answered from its rows. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are typed by the caller
export function rowsRead<T, R = any>(statement: BatchStatement, answer: (rows: R[]) => T): Read<T> {
  return { statements: [statement], answer: ([r]) => answer(r!.rows as R[]) };
}

/** A read that needs no statement (e.g. nothing to look up): answers `value`. */
export function noRead<T>(value: T): Read<T> {
  return { statements: [], answer: () => value };
}

/** Runs one read on a pool or in a transaction (its statements one after the other). */
export async function read<T>(db: Queryable, r: Read<T>): Promise<T> {
  if (db instanceof PgTransaction) return (await db.reads([r]))[0] as T;
  const results: QueryRows<unknown>[] = [];
  for (const s of r.statements) results.push(await db.query(s));
  return r.answer(results);
}

interface Deferred {
  statement: BatchStatement;
  /** Translates the statement's failure into the caller's error (e.g. a unique violation into a 409). */
  onError?: (err: BatchError) => Error | undefined;
}

const BEGIN: BatchStatement = { text: 'BEGIN' };
const COMMIT: BatchStatement = { text: 'COMMIT' };

function toStatement(config: BatchStatement | string, values?: unknown[]): BatchStatement {
  return typeof config === 'string' ? { text: config, values } : config;
}

/**
 * One transaction on one pooled connection that sends as few messages as it can: BEGIN goes out
 * with the first statement, and writes whose answer nobody reads (`defer`) go out with the next
 * statement or with COMMIT, all in one round trip (db/batch.ts says why that matters here). The
 * order of statements is the order of the calls, as if each had been sent alone; what changes is
 * when a deferred write's failure is seen: at the next query or at commit, where `onError` can
 * still translate it.
 */
export class PgTransaction implements Queryable {
  private begun = false;
  private finished = false;
  private deferred: Deferred[] = [];
  private atCommit: Deferred[] = [];

  constructor(readonly client: pg.PoolClient) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's own default row type
  async query<R extends pg.QueryResultRow = any>(config: BatchStatement | string, values?: unknown[]): Promise<QueryRows<R>> {
    const [result] = await this.send([toStatement(config, values)]);
    return result as QueryRows<R>;
  }

  /** Runs these reads (after anything deferred) in one round trip, in order; answers each. */
  async reads<T extends readonly unknown[]>(reads: { readonly [K in keyof T]: Read<T[K]> }): Promise<T> {
    const all = reads as readonly Read<unknown>[];
    const results = await this.send(all.flatMap((r) => r.statements));
    let at = 0;
    return all.map((r) => {
      const mine = results.slice(at, (at += r.statements.length));
      return r.answer(mine);
    }) as unknown as T;
  }

  /** A write whose answer is not needed: sent with the next statement or with COMMIT. */
  defer(statement: BatchStatement, onError?: Deferred['onError']): void {
    if (this.finished) throw new Error('defer after the transaction ended');
    this.deferred.push({ statement, onError });
  }

  /**
   * A write sent only with COMMIT, after every other statement: until then the transaction holds
   * no lock of it (a row another connection may have to change if this transaction fails).
   */
  deferToCommit(statement: BatchStatement, onError?: Deferred['onError']): void {
    if (this.finished) throw new Error('defer after the transaction ended');
    this.atCommit.push({ statement, onError });
  }

  async commit(): Promise<void> {
    this.deferred.push(...this.atCommit.splice(0));
    if (this.begun || this.deferred.length > 0) await this.send([COMMIT]);
    this.finished = true;
  }

  async rollback(): Promise<void> {
    this.deferred = [];
    this.atCommit = [];
    this.finished = true;
    if (this.begun) await this.client.query('ROLLBACK');
  }

  private async send(statements: readonly BatchStatement[]): Promise<QueryRows<unknown>[]> {
    if (this.finished) throw new Error('statement after the transaction ended');
    const deferred = this.deferred;
    this.deferred = [];
    const head: BatchStatement[] = this.begun ? [] : [BEGIN];
    this.begun = true;
    const before = head.length + deferred.length;
    if (before === 0 && statements.length === 1) return [await this.client.query(statements[0]! as pg.QueryConfig)];
    try {
      const results = await queryBatch(this.client, [...head, ...deferred.map((d) => d.statement), ...statements]);
      return results.slice(before);
    } catch (err) {
      const at = (err as BatchError).batchIndex;
      const failed = at !== undefined && at >= head.length && at < before ? deferred[at - head.length] : undefined;
      throw failed?.onError?.(err as BatchError) ?? err;
    }
  }
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it returns, ROLLBACK when it
 * throws (the error is rethrown). A connection whose ROLLBACK failed is in an unknown state: it is
 * closed instead of going back to the pool. So is one the server dropped meanwhile: pg reports that
 * as an 'error' event on the checked-out client (while the transaction waits on something else, a
 * call to another service say), which unlistened would end the process; the transaction's next
 * statement or COMMIT then fails, and the change with it.
 */
export function inPgTransaction<R>(pool: pg.Pool, work: (tx: PgTransaction) => Promise<R>): Promise<R> {
  return withClient(pool, async (client, discard) => {
    const tx = new PgTransaction(client);
    try {
      const result = await work(tx);
      await tx.commit();
      return result;
    } catch (err) {
      await tx.rollback().catch(discard);
      throw err;
    }
  });
}

/** Postgres 40001 (serialization failure) or 40P01 (deadlock): the transaction may simply run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}
