import { error as validatorErrors } from 'express-openapi-validator';
import { Problem } from '@pf/platform/problems';
import { recordingLogger } from '@pf/platform/testing/recorded-logs';
import type { Request, Response } from 'express';
import { UpstreamError, UpstreamUnreachableError } from '../upstream/graphql';
import { answerFor, errorHandler } from './errors';

describe('answerFor', () => {
  it('passes client-side Problems through, including the subgraphs', () => {
    const p = new Problem('order-not-updatable', { detail: 'x', extensions: { orderUuid: 'u' } });
    expect(answerFor(p)?.problem).toBe(p);
  });

  it('treats server-side Problems and upstream failures as unexpected (500 with a reference)', () => {
    expect(answerFor(new Problem('unavailable', { detail: 'subgraph down' }))).toBeUndefined();
    expect(answerFor(new UpstreamError('down', 'gateway'))).toBeUndefined();
    expect(answerFor(new TypeError('bug'))).toBeUndefined();
  });

  it('turns validator errors into 422 naming each field, 404 and 405 with Allow', () => {
    const bad = new validatorErrors.BadRequest({ path: '/x', message: 'bad' });
    bad.errors = [
      { path: '/body/orderLines/7/product/sku', message: 'must NOT have more than 255 characters' },
      { path: '/query/active-state', message: 'must be equal to one of the allowed values' },
    ];
    expect(answerFor(bad)?.problem.toBody()).toMatchObject({
      status: 422,
      title: 'Unprocessable Entity',
      violations: [
        { property: 'orderLines[7].product.sku', message: 'must NOT have more than 255 characters' },
        { property: 'active-state', message: 'must be equal to one of the allowed values' },
      ],
    });
    expect(answerFor(new validatorErrors.NotFound({ path: '/x' }))?.problem.status).toBe(404);
    const notAllowed = new validatorErrors.MethodNotAllowed({ path: '/x', message: 'DELETE method not allowed', headers: { Allow: 'GET' } } as never);
    const answer = answerFor(notAllowed);
    expect(answer?.problem.toBody()).toMatchObject({ status: 405, title: 'Method Not Allowed' });
    expect(answer?.headers).toEqual({ Allow: 'GET, HEAD' });
    const postOnly = new validatorErrors.MethodNotAllowed({ path: '/x', message: 'GET method not allowed', headers: { Allow: 'POST' } } as never);
    expect(answerFor(postOnly)?.headers).toEqual({ Allow: 'POST' });
    expect(answerFor(new validatorErrors.UnsupportedMediaType({ path: '/x' }))?.problem.toBody()).toMatchObject({
      status: 422,
      violations: [{ property: 'body' }],
    });
  });

  it('turns body-parser errors into 422 naming the body', () => {
    const parse = Object.assign(new SyntaxError('Unexpected end'), { status: 400, type: 'entity.parse.failed' });
    expect(answerFor(parse)?.problem.toBody()).toMatchObject({ status: 422, violations: [{ property: 'body', message: 'The request body is not valid JSON.' }] });
    const large = Object.assign(new Error('too large'), { status: 413, type: 'entity.too.large' });
    expect(answerFor(large)?.problem.status).toBe(422);
    const notUtf8 = Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, type: 'entity.not.utf8' });
    expect(answerFor(notUtf8)?.problem.toBody()).toMatchObject({ status: 422, violations: [{ property: 'body', message: 'The request body is not valid UTF-8.' }] });
  });

  it('a body that does not decode as its Content-Encoding says is a 422 naming the body, not a 500', () => {
    for (const code of ['Z_DATA_ERROR', 'Z_BUF_ERROR', 'ERR__ERROR_FORMAT_PADDING_2']) {
      const err = Object.assign(new Error('incorrect header check'), { status: 400, code, expose: true });
      expect(answerFor(err)?.problem.toBody()).toMatchObject({ status: 422, violations: [{ property: 'body' }] });
    }
    expect(answerFor(Object.assign(new Error('boom'), { status: 400, code: 'ECONNRESET' }))).toBeUndefined();
  });

  it('a path that does not decode names no resource, in the words of the resource it is under when there is one', () => {
    expect(answerFor(new URIError('URI malformed'))?.problem.toBody()).toMatchObject({ status: 404, detail: 'No resource has this path.' });
    expect(answerFor(new URIError('URI malformed'), () => 'This order could not be found.')?.problem.toBody()).toMatchObject({ status: 404, detail: 'This order could not be found.' });
  });
});

describe('errorHandler', () => {
  /** Runs the handler on `err` and answers the logged lines and the answer's status and body. */
  function handle(err: unknown) {
    const { logger, lines } = recordingLogger();
    const answer: { status?: number; body?: string } = {};
    const res = {
      headersSent: false,
      locals: { requestId: 'req-1' },
      status(code: number) { answer.status = code; return this; },
      set() { return this; },
      setHeader() { return this; },
      end(body: string) { answer.body = body; },
    } as unknown as Response;
    errorHandler(logger)(err, { method: 'GET', path: '/v1/channels/c/team' } as Request, res, () => undefined);
    return { lines, status: answer.status, body: JSON.parse(answer.body ?? '{}') as { reference?: string } };
  }

  it('answers an outage 500 with a reference, logged at warn without a stack: an upstream out of reach, or one saying it cannot serve now', () => {
    for (const err of [new UpstreamUnreachableError('gateway could not be reached: connect ECONNREFUSED', 'gateway'), new Problem('unavailable', { detail: 'The database cannot be reached.' })]) {
      const { lines, status, body } = handle(err);
      expect(status).toBe(500);
      expect(lines).toEqual([{ level: 'warn', msg: 'upstream unavailable: answered 500', obj: expect.objectContaining({ reference: body.reference, requestId: 'req-1', cause: err.message }) }]);
      expect(lines[0]!.obj).not.toHaveProperty('err');
    }
  });

  it('logs anything else unexpected at error, with the error', () => {
    for (const err of [new TypeError('bug'), new UpstreamError('gateway answered GraphQL errors', 'gateway')]) {
      const { lines, status, body } = handle(err);
      expect(status).toBe(500);
      expect(lines).toEqual([{ level: 'error', msg: 'unexpected error', obj: expect.objectContaining({ err, reference: body.reference }) }]);
    }
  });
});
