import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../logging';
import { Problem } from '../problems';

/** What body-parser says, per error `type`, about a body it could not read. */
const BODY_REFUSALS: Record<string, string> = {
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': 'The request body is too large.',
  'charset.unsupported': 'The request body must be UTF-8 JSON.',
  'encoding.unsupported': 'The request body must be UTF-8 JSON.',
  'entity.verify.failed': 'The request body could not be read.',
  'request.size.invalid': 'The request body is shorter or longer than its Content-Length.',
};

/**
 * The last middleware of a GraphQL endpoint (gateway and subgraphs): what fails before Apollo sees
 * the request answers as Apollo answers a malformed request, JSON with `errors[0].extensions.code`
 * `BAD_REQUEST` (and the problem naming the body), with body-parser's status (400, 413, 415);
 * never express's HTML page, which in development also shows a stack trace. Anything else is a
 * 500 with a reference to the logged error.
 */
export function graphqlHttpErrors(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const type = (err as { type?: unknown }).type;
    const status = (err as { status?: unknown }).status;
    const message = typeof type === 'string' ? BODY_REFUSALS[type] : undefined;
    if (message !== undefined && typeof status === 'number' && status >= 400 && status < 500) {
      const problem = Problem.validation([{ property: 'body', message }], message);
      res.status(status).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST', problem: problem.toTransport() } }] });
      return;
    }
    const reference = randomUUID();
    logger.error({ err, reference }, 'unexpected error before the GraphQL request was read');
    res.status(500).json({ errors: [{ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', reference } }] });
  };
}
