/**
 * Runs `work` once for every item, at most `limit` at a time, starting them in order; resolves
 * when all have ended. `work` handles its own failures (a rejection ends the whole run).
 */
export async function eachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
