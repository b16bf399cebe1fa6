/** The `POST /test-connection` body's `data` (OpenAPI `TestConnectionResult`). */
export function toTestConnectionResult(channel: { id: string; teamCode: string }, apiVersion: string, echo: string | undefined) {
  return { ok: true as const, channelId: channel.id, teamCode: channel.teamCode, apiVersion, ...(echo !== undefined ? { echo } : {}) };
}
