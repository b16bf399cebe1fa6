/**
 * Collects the keys asked for during one turn of the event loop and loads them with one call.
 * The gateway sends every Product representation of a request in one `_entities` call and Apollo
 * resolves them one by one; this turns those into a single query.
 */
export class BatchLoader<K, V> {
  private queue: { key: K; resolve: (v: V | null) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly loadMany: (keys: K[]) => Promise<Map<K, V>>) {}

  load(key: K): Promise<V | null> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({ key, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      const found = await this.loadMany([...new Set(batch.map((b) => b.key))]);
      for (const b of batch) b.resolve(found.get(b.key) ?? null);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
