import type { Queryable } from '../db/transaction';

/**
 * The one thing the outbox and inbox need from a transaction: run a statement and get the row
 * count. A Prisma interactive-transaction client satisfies it as is; `pgSql` adapts a pg client.
 */
export interface RawSql {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

export function pgSql(client: Queryable): RawSql {
  return {
    async $executeRawUnsafe(query, ...values) {
      const res = await client.query(query, values);
      return res.rowCount ?? 0;
    },
  };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
  return `"${schema}"`;
}

/** Channel the relay LISTENs on; the outbox writer NOTIFYs it so events leave without polling delay. */
export function outboxChannel(schema: string): string {
  return `pf_outbox_${schema}`;
}
