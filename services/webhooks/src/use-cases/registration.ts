import { teamActiveClaim, type Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { targetChannel, type ChannelRef } from '../domain/authorisation';
import { generateSecret } from '../domain/secrets';
import { checkWebhookUrl } from '../domain/url-policy';
import { findEndpoint, registerUrl, replaceSecret, type EndpointInfo } from '../repositories/endpoints';
import { findChannel, findTeamActive, type ChannelRow } from '../repositories/read-models';
import type { WebhooksDeps } from './deps';

/** What `POST /webhooks` and `POST /webhooks/secret/rotate` answer (`data.webhookDetail`). */
export interface WebhookDetail {
  channelId: string;
  url: string | null;
  /** The channel's current signing secret; the only place it is ever shown. */
  secret: string;
}

/**
 * The channel as the accounts events announced it. A back-office or service caller naming a
 * channel accounts never announced gets 404: a registration there would be sent every stock
 * webhook of the team. An integration's own channel was just authenticated by the edge, so it
 * exists even when its accounts event has not arrived yet (null then).
 */
async function announcedChannel(deps: WebhooksDeps, identity: Identity, ref: ChannelRef): Promise<ChannelRow | null> {
  const channel = await findChannel(deps.pool, ref.channelId);
  if (!channel && identity.kind !== 'channel') throw Problem.notFound(`Channel ${ref.channelId} was not found.`);
  return channel;
}

function refuseStandardChannel(channel: ChannelRow | null): void {
  if (channel?.standard) {
    throw new Problem('standard-channel', { detail: 'The Standard channel has no integration and cannot receive webhooks.' });
  }
}

/**
 * `POST /webhooks`: rule W1 in full (fresh DNS) first, so an inactive team still gets 422 for an
 * invalid URL (a back-office caller's channel must be known before that); then the team (403
 * team-inactive) and the Standard channel (403). Registering again replaces the URL and answers
 * the same secret; the first registration creates it.
 */
export async function registerWebhook(deps: WebhooksDeps, identity: Identity, input: { url: string; channelId?: string | null }): Promise<WebhookDetail> {
  const ref = targetChannel(identity, input.channelId);
  const channel = await announcedChannel(deps, identity, ref);
  const verdict = await checkWebhookUrl(input.url, deps.resolver, deps.policy);
  if (!verdict.ok) {
    throw Problem.validation([{ property: 'url', message: verdict.refusal.message }], `The webhook URL is not acceptable: ${verdict.refusal.message}`);
  }
  if ((teamActiveClaim(identity) ?? (await findTeamActive(deps.pool, ref.teamCode))) === false) {
    throw new Problem('team-inactive', { detail: 'The team is inactive; webhooks cannot be registered.' });
  }
  refuseStandardChannel(channel);
  const registered = await registerUrl(deps.prisma, {
    channelId: ref.channelId,
    teamCode: ref.teamCode,
    channelCode: ref.channelCode,
    // As sent: W1's 200 characters are the client's, and every delivery judges this same string
    // again (the parser's serialisation may be longer: `{` becomes `%7B`, a host gets its `/`).
    url: input.url,
    newSecret: deps.secrets.seal(generateSecret(), ref.channelId),
  });
  deps.endpoints.invalidate(ref.channelId);
  deps.logger.info({ channelId: ref.channelId, host: verdict.url.hostname }, 'webhook URL registered');
  return { channelId: ref.channelId, url: input.url, secret: deps.secrets.open(registered.secret, ref.channelId) };
}

/**
 * `POST /webhooks/secret/rotate` (and the back-office's "regenerate secret"): a new secret at
 * once. Webhooks queued before keep their signature; everything queued after is signed with the
 * new one. Shown once, in the answer.
 */
export async function rotateWebhookSecret(deps: WebhooksDeps, identity: Identity, input: { channelId?: string | null }): Promise<WebhookDetail> {
  const ref = targetChannel(identity, input.channelId);
  refuseStandardChannel(await announcedChannel(deps, identity, ref));
  const secret = generateSecret();
  const rotated = await replaceSecret(deps.prisma, { ...ref, newSecret: deps.secrets.seal(secret, ref.channelId) });
  deps.endpoints.invalidate(ref.channelId);
  deps.logger.info({ channelId: ref.channelId, secretVersion: rotated.secretVersion }, 'webhook secret rotated');
  return { channelId: ref.channelId, url: rotated.url, secret };
}

/** The channel's registration (never the secret), or null when it has none. */
export async function channelWebhook(deps: WebhooksDeps, identity: Identity, channelId?: string | null): Promise<EndpointInfo | null> {
  const ref = targetChannel(identity, channelId);
  return findEndpoint(deps.prisma, ref.channelId);
}
