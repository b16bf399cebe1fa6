import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler } from 'express';
import { bodyRefusal } from '../http/body-refusal';
import type { Logger } from '../logging';
import { Problem } from '../problems';

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
    const violation = bodyRefusal(err);
    if (violation !== undefined) {
      const message = violation.message;
      const problem = Problem.validation([violation], message);
      res.status((err as { status: number }).status).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST', problem: problem.toTransport() } }] });
      return;
    }
    const reference = randomUUID();
    logger.error({ err, reference }, 'unexpected error before the GraphQL request was read');
    res.status(500).json({ errors: [{ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', reference } }] });
  };
}
