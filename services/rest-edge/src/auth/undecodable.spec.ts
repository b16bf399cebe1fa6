import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { undecodableChannelIds } from './authenticate';

describe('undecodableChannelIds', () => {
  it('hands a failure of authentication (Redis unreachable) to the error middleware, never leaving it unhandled', async () => {
    const failure = new Error('The client is closed');
    const authenticate: RequestHandler = async () => {
      throw failure;
    };
    const next = jest.fn() as unknown as NextFunction & jest.Mock;
    undecodableChannelIds(authenticate, /^\/v1\/channels\/([^/]+)/)({ path: '/v1/channels/%E0%A4/x' } as Request, {} as Response, next);
    await new Promise((r) => setImmediate(r));
    expect(next).toHaveBeenCalledWith(failure);
  });
});
