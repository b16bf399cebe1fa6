import pg from 'pg';
// pg's own conversion of JavaScript values to parameters (Dates, arrays, Buffers, JSON), so a
// statement binds the same in a batch as in client.query.
import { prepareValue } from 'pg/lib/utils';

/** A statement as client.query takes it: text, values and, to prepare it once per connection, a name. */
export interface BatchStatement {
  text: string;
  values?: readonly unknown[];
  name?: string;
}

/** What one statement of a batch answered. */
export interface BatchResult<R = Record<string, unknown>> {
  rows: R[];
  rowCount: number;
  /** The command tag's verb: SELECT, INSERT, BEGIN, COMMIT, ... */
  command: string;
}

/** A statement of a batch failed: Postgres's error (code, constraint, ...) and which statement it was. */
export interface BatchError extends Error {
  /** Postgres's SQLSTATE and, for a constraint violation, the constraint (pg's DatabaseError fields). */
  code?: string;
  constraint?: string;
  /** Index of the failing statement; the statements after it did not run. */
  batchIndex?: number;
}

/**
 * Names prepared by batches on each connection (by text). Batch names are their own ("b:" and the
 * statement's name): pg's bookkeeping of the names it prepares does not see batches, so sharing a
 * name would let pg parse a statement a batch had already prepared.
 */
const preparedOn = new WeakMap<object, Map<string, string>>();

interface PgConnection {
  stream: { cork?: () => void; uncork?: () => void };
  parse(msg: { text: string; name: string; types?: unknown[] }): void;
  bind(msg: { statement: string; values: unknown[]; portal?: string }): void;
  describe(msg: { type: 'P' | 'S'; name: string }): void;
  execute(msg: { portal: string; rows: number }): void;
  close(msg: { type: 'P' | 'S'; name: string }): void;
  sync(): void;
  sendCopyFail(msg: string): void;
}

interface Field {
  name: string;
  dataTypeID: number;
  format: string;
}

type Parser = (value: string) => unknown;

/**
 * Statements sent to Postgres in one write and answered in one: Parse/Bind/Describe/Execute for
 * each, then a single Sync. Postgres runs them in order, each with its own snapshot (as if sent one
 * by one), and flushes its answers at the Sync. On this project's VMs every message between two
 * processes costs a wake-up through the hypervisor, which is most of what a short statement costs
 * (docs/benchmarks.md, `orders`); a batch pays it once. When one fails, Postgres skips the rest:
 * in a transaction block the transaction is then aborted, as it would be statement by statement.
 *
 * pg submits objects with `submit` and the `handle*` callbacks the way it does its own queries
 * (pg-cursor and pg-query-stream are built the same way); this one stays within that interface.
 */
class Batch {
  callback?: (err: Error | null, results?: BatchResult[]) => void;
  private readonly results: BatchResult[] = [];
  private fields: Field[] = [];
  private parsers: Parser[] = [];
  private rows: Record<string, unknown>[] = [];
  private index = 0;
  private answered = false;
  private connection: PgConnection | null = null;
  /** Statements parsed by this batch, by index: confirmed on success, forgotten from the failure on. */
  private readonly parsedHere = new Map<number, [string, string]>();

  constructor(private readonly statements: readonly BatchStatement[]) {}

  submit(connection: PgConnection): Error | null {
    let values: unknown[][];
    try {
      // Converted before anything is written: a value pg cannot send must not leave half a batch on the wire.
      values = this.statements.map((s) => (s.values ?? []).map((v) => prepareValue(v)));
    } catch (err) {
      return err as Error;
    }
    this.connection = connection;
    let prepared = preparedOn.get(connection);
    if (!prepared) preparedOn.set(connection, (prepared = new Map()));
    connection.stream.cork?.();
    try {
      this.statements.forEach((s, i) => {
        const name = s.name ? `b:${s.name}` : '';
        if (!name || prepared.get(name) !== s.text) {
          // Closing a name that does not exist is no error: this clears one a failed batch may have left.
          if (name) connection.close({ type: 'S', name });
          connection.parse({ text: s.text, name });
          if (name) this.parsedHere.set(i, [name, s.text]);
        }
        connection.bind({ statement: name, values: values[i]! });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text') as Parser);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    const row: Record<string, unknown> = {};
    msg.fields.forEach((raw, i) => {
      row[this.fields[i]!.name] = raw === null ? null : this.parsers[i]!(raw);
    });
    this.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    const words = msg.text.split(' ');
    const count = Number(words[words.length - 1]);
    this.finishStatement(words[0] ?? '', Number.isFinite(count) ? count : 0);
  }

  handleEmptyQuery(): void {
    this.finishStatement('', 0);
  }

  handlePortalSuspended(): void {
    // Every Execute asks for all rows (0), so a portal is never suspended.
  }

  handleCopyInResponse(connection: PgConnection): void {
    connection.sendCopyFail('COPY is not supported in a batch');
  }

  handleCopyData(): void {}

  handleError(err: BatchError): void {
    // pg forgets the active query on an error: this is the batch's last call (its Sync's answer goes nowhere).
    if (this.answered) return;
    if (this.index < this.statements.length) err.batchIndex = this.index;
    this.remember(this.index);
    this.answer(err);
  }

  handleReadyForQuery(): void {
    if (this.answered) return;
    this.remember(this.statements.length);
    this.answer(null, this.results);
  }

  /** Once: a read time-out (query_timeout) can fail the batch before Postgres answers it. */
  private answer(err: Error | null, results?: BatchResult[]): void {
    this.answered = true;
    this.callback?.(err, results);
  }

  private finishStatement(command: string, rowCount: number): void {
    this.results.push({ rows: this.rows, rowCount, command });
    this.rows = [];
    this.fields = [];
    this.parsers = [];
    this.index += 1;
  }

  /** Statements before `upTo` ran, so their Parse did; from it on, whether it did is unknown. */
  private remember(upTo: number): void {
    const prepared = this.connection ? preparedOn.get(this.connection) : undefined;
    if (!prepared) return;
    for (const [i, [name, text]] of this.parsedHere) {
      if (i < upTo) prepared.set(name, text);
      else prepared.delete(name);
    }
  }
}

/**
 * Runs `statements` in order in one round trip (see Batch) and answers each one's result. Rejects
 * with the first failing statement's error, `batchIndex` set to its position.
 */
export function queryBatch(client: pg.ClientBase, statements: readonly BatchStatement[]): Promise<BatchResult[]> {
  if (statements.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const batch = new Batch(statements);
    batch.callback = (err, results) => (err ? reject(err) : resolve(results!));
    (client as unknown as { query(q: Batch): unknown }).query(batch);
  });
}
