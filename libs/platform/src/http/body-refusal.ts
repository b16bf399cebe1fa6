import { isUtf8 } from 'node:buffer';

/** The `type` of refuseInvalidUtf8's refusal, as body-parser's own errors have one. */
const NOT_UTF8 = 'entity.not.utf8';

/**
 * express.json's `verify` step: the raw body (after any Content-Encoding) must be UTF-8, as JSON
 * is (RFC 8259); the decoder would otherwise put U+FFFD in place of the bytes that are not, and
 * the request would go on with text the client never sent. body-parser passes the refusal on
 * with its status (400) and type, which bodyRefusal words.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, type: NOT_UTF8 });
}

/** What body-parser's errors say, per `type`, about a request body it could not read. */
const REFUSALS: Record<string, string> = {
  [NOT_UTF8]: 'The request body is not valid UTF-8.',
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': 'The request body is too large.',
  'charset.unsupported': 'The request body must be UTF-8 JSON without content encoding.',
  'encoding.unsupported': 'The request body must be UTF-8 JSON without content encoding.',
  'request.size.invalid': 'The request body is shorter or longer than its Content-Length.',
};

/** Error codes of node:zlib (`Z_DATA_ERROR`, `Z_BUF_ERROR`) and of its brotli decoder (`ERR__ERROR_FORMAT_...`). */
const DECOMPRESSION_ERROR = /^(Z_|ERR__ERROR_|ERR_BROTLI)/;

/**
 * Why express's body parser (express.json) refused a request body, for a problem naming `body`:
 * JSON that does not parse, a body over the size limit, an unknown charset or encoding, a length
 * other than announced, or a body that does not decode as its Content-Encoding says (zlib's or
 * brotli's error, passed on as a 400 without a `type`), or bytes that are not UTF-8
 * (refuseInvalidUtf8). Undefined for any other error (and for another `verify` step's refusal,
 * which only its owner can word).
 */
export function bodyRefusal(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const { status, type, code } = err as { status?: unknown; type?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 400 && typeof code === 'string' && DECOMPRESSION_ERROR.test(code)) return 'The request body does not decode as its Content-Encoding says.';
  // Strict parsing refuses a bare value (`null`, `12`, `"x"`) with the same error as broken JSON.
  if (type === 'entity.parse.failed' && isJson((err as { body?: unknown }).body)) return 'The request body must be a JSON object, not a bare value.';
  return typeof type === 'string' ? REFUSALS[type] : undefined;
}

function isJson(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
