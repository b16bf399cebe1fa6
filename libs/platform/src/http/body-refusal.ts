import { isUtf8 } from 'node:buffer';
import { jsonShapeFault, type JsonShapeLimits } from '../json-shape';
import type { Violation } from '../problems';

/** The `type` of refuseInvalidUtf8's refusal, as body-parser's own errors have one. */
const NOT_UTF8 = 'entity.not.utf8';
/** The `type` of checkJsonBody's refusal of a body's structure; the error carries the member. */
const BAD_SHAPE = 'entity.shape.refused';

/**
 * express.json's `verify` step: the raw body (after any Content-Encoding) must be UTF-8, as JSON
 * is (RFC 8259); the decoder would otherwise put U+FFFD in place of the bytes that are not, and
 * the request would go on with text the client never sent. Its Content-Type must not name another
 * charset either: body-parser decodes any `utf-*` it names (`charset=utf-16le`), while every check
 * made on the bytes (checkJsonBody) reads them as UTF-8, and ASCII-range UTF-16 is valid UTF-8, so
 * the checks would look at other text than the one parsed. body-parser passes the refusals on with
 * their status and type, which bodyRefusal words.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer, charset = 'utf-8'): void {
  if (charset.toLowerCase() !== 'utf-8') throw Object.assign(new Error(`The request body's charset is ${charset}, not UTF-8.`), { status: 415, type: 'charset.unsupported' });
  if (!isUtf8(body)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, type: NOT_UTF8 });
}

/**
 * express.json's `verify` step for a public endpoint: the body must be UTF-8 (refuseInvalidUtf8)
 * and its structure within `limits` with no member name twice (jsonShapeFault), checked on the
 * bytes before they are parsed: parsing and walking a few megabytes of tiny values costs seconds
 * of the one thread every request shares.
 */
export function checkJsonBody(limits: JsonShapeLimits): (req: unknown, res: unknown, body: Buffer, charset?: string) => void {
  return (req, res, body, charset) => {
    refuseInvalidUtf8(req, res, body, charset);
    const fault = jsonShapeFault(body, limits);
    if (fault) throw Object.assign(new Error(fault.message), { status: 400, type: BAD_SHAPE, property: fault.property });
  };
}

/** What body-parser's errors say, per `type`, about a request body it could not read. */
const REFUSALS: Record<string, string> = {
  [NOT_UTF8]: 'The request body is not valid UTF-8.',
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': 'The request body is too large.',
  'charset.unsupported': 'The request body must be UTF-8 JSON without content encoding.',
  'encoding.unsupported': 'The request body must be UTF-8 JSON without content encoding.',
  'request.size.invalid': 'The request body is shorter or longer than its Content-Length.',
  // The client went away (or Node's request timeout cut a body that never came): nobody reads the
  // answer, and it is the client's doing, not an error of ours to log.
  'request.aborted': 'The request body was not sent in full.',
};

/** Error codes of node:zlib (`Z_DATA_ERROR`, `Z_BUF_ERROR`) and of its brotli decoder (`ERR__ERROR_FORMAT_...`). */
const DECOMPRESSION_ERROR = /^(Z_|ERR__ERROR_|ERR_BROTLI)/;

/**
 * Why express's body parser (express.json) refused a request body, as the violation naming it
 * (`body`, or the member checkJsonBody found at fault): JSON that does not parse, a body over the
 * size limit, an unknown charset or encoding, a length other than announced, a body not sent in
 * full, a body that does not decode as its Content-Encoding says (zlib's or brotli's error, passed
 * on as a 400 without a `type`), bytes that are not UTF-8 (refuseInvalidUtf8), or a structure
 * checkJsonBody refuses. Undefined for any other error (and for another `verify` step's refusal,
 * which only its owner can word).
 */
export function bodyRefusal(err: unknown): Violation | undefined {
  if (!(err instanceof Error)) return undefined;
  const { status, type, code, property } = err as { status?: unknown; type?: unknown; code?: unknown; property?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const body = (message: string | undefined) => (message === undefined ? undefined : { property: 'body', message });
  if (status === 400 && typeof code === 'string' && DECOMPRESSION_ERROR.test(code)) return body('The request body does not decode as its Content-Encoding says.');
  if (type === BAD_SHAPE && typeof property === 'string') return { property, message: err.message };
  // Strict parsing refuses a bare value (`null`, `12`, `"x"`) with the same error as broken JSON.
  if (type === 'entity.parse.failed' && isJson((err as { body?: unknown }).body)) return body('The request body must be a JSON object, not a bare value.');
  return typeof type === 'string' ? body(REFUSALS[type]) : undefined;
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
