import type { Logger } from '@pf/platform/logging';
import type { SecretBox } from '../domain/secrets';
import type { Queryable } from '../repositories/db';
import { replaceSealedSecret, secretsSealedWithOtherKeys } from '../repositories/endpoints';

export interface ResealOutcome {
  /** Secrets sealed again with the current key. */
  resealed: number;
  /** Left as they were: a rotation or registration replaced them meanwhile (already under the current key). */
  changedMeanwhile: number;
  /** Secrets no key of the ring opens (their key is missing, or the row was tampered with): left as they are. */
  unopenable: string[];
}

/**
 * Seals every channel's webhook signing secret again with the current key (the secrets do not
 * change: integrations notice nothing), so a key taken out of `WEBHOOK_SECRET_PREVIOUS_KEYS`
 * afterwards opens no row any more. Walks the registrations in pages of `batch`; each row is one
 * statement that only replaces what it read. Safe to run again, and beside running services.
 */
export async function resealSecrets(sql: Queryable, box: SecretBox, logger: Pick<Logger, 'warn'>, batch = 500): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, changedMeanwhile: 0, unopenable: [] };
  let after: string | null = null;
  for (;;) {
    const page = await secretsSealedWithOtherKeys(sql, box.currentKeyId, after, batch);
    for (const { channelId, secret } of page) {
      let plain: string;
      try {
        plain = box.open(secret, channelId);
      } catch (err) {
        logger.warn({ channelId, keyId: secret.keyId, err }, 'webhook secret not re-sealed: no key of the ring opens it');
        outcome.unopenable.push(channelId);
        continue;
      }
      if (await replaceSealedSecret(sql, channelId, secret, box.seal(plain, channelId))) outcome.resealed++;
      else outcome.changedMeanwhile++;
    }
    if (page.length < batch) return outcome;
    after = page[page.length - 1]!.channelId;
  }
}
