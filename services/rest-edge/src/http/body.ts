import { isUtf8 } from 'node:buffer';

/**
 * express.json's `verify` step: the raw body (after any Content-Encoding) must be UTF-8, as JSON
 * is (RFC 8259); the decoder would otherwise put U+FFFD in place of the bytes that are not, and
 * the request would go on with text the client never sent. body-parser answers the throw as
 * `entity.verify.failed`, which the error handler turns into a 422 naming the body.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new Error('The request body is not valid UTF-8.');
}
