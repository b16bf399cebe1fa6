/** What body-parser's errors say, per `type`, about a request body it could not read. */
const REFUSALS: Record<string, string> = {
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
 * brotli's error, passed on as a 400 without a `type`). Undefined for any other error (and for a
 * `verify` step's refusal, which only its owner can word).
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
