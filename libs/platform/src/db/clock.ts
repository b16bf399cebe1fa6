/** What reads the clock: a Prisma client or transaction (their raw query), in the caller's transaction. */
export interface ClockReader {
  $queryRawUnsafe<T = unknown>(query: string): PromiseLike<T>;
}

/**
 * The database's clock, read in the caller's transaction once it has locked or written the row an
 * event is about: what stamps events whose consumers keep the state with the newest `occurredAt`
 * (teams, channels, products). One clock, read under the row's lock, orders one aggregate's
 * changes as they happened, whichever replica made them; the replicas' own clocks may differ.
 * (Stock reads the same clock with its product locks: changeTimeRead.)
 */
export async function databaseClock(db: ClockReader): Promise<Date> {
  const rows = await db.$queryRawUnsafe<{ at: Date }[]>('SELECT clock_timestamp() AS at');
  return rows[0]!.at;
}
