import type { TokenChannelFields } from './operation';

/** The `GET /token` body's `data` (OpenAPI `TokenInfo`). */
export function toTokenInfo(channel: TokenChannelFields, token: NonNullable<TokenChannelFields['apiToken']>) {
  return { channelId: token.channelId, teamCode: channel.teamCode, tokenPrefix: token.prefix, createdAt: token.createdAt };
}
