import { mayQueueNewWebhooks } from '../domain/delivery-rules';
import type { Queryable } from '../repositories/db';
import { endpointOf } from '../repositories/endpoints';
import type { SecretBox } from '../domain/secrets';

/** What the event path needs to sign a webhook for a channel without a round trip. */
export interface CachedEndpoint {
  channelId: string;
  /** The secret version to sign with; null when the channel may get no new webhook. */
  secretVersion: number | null;
  /** The secret itself (only when `secretVersion` is set). */
  secret: string | null;
}

/**
 * Registrations as last read, so the event consumer can serialise and sign BEFORE its one
 * statement. Never trusted blindly: the statement checks the version against the locked row and
 * writes nothing when it differs, and the consumer reads the registration again and retries.
 * So a rotation or a new registration in another replica costs one extra round trip, never a
 * wrong signature.
 */
export class EndpointCache {
  private readonly entries = new Map<string, CachedEndpoint>();

  constructor(
    private readonly db: Queryable,
    private readonly secrets: SecretBox,
    private readonly maxEntries = 10_000,
  ) {}

  async get(channelId: string): Promise<CachedEndpoint> {
    const hit = this.entries.get(channelId);
    if (hit) return hit;
    const endpoint = await endpointOf(this.db, channelId);
    const entry: CachedEndpoint =
      endpoint && mayQueueNewWebhooks(endpoint.channel, endpoint.url)
        ? { channelId, secretVersion: endpoint.secretVersion, secret: this.secrets.open(endpoint.secret, channelId) }
        : { channelId, secretVersion: null, secret: null };
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(channelId, entry);
    return entry;
  }

  invalidate(channelId: string): void {
    this.entries.delete(channelId);
  }
}
