import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '@pf/platform/logging';
import { UpstreamError } from '../upstream/graphql';
import { requestIdOf } from './request-context';

/**
 * Writes a JSON body chunk by chunk (chunked transfer encoding), holding one chunk at a time:
 * - the status and headers go out with the first chunk, so a failure before it is thrown to the
 *   caller (and answered as a problem by the error middleware);
 * - each write waits for the socket to drain when its buffer is full (backpressure), so a slow
 *   client slows the producer instead of filling memory;
 * - a failure after the first chunk destroys the connection without the terminating chunk: the
 *   client sees a truncated response, never a complete-looking document; the error is logged
 *   with a reference;
 * - a client that goes away stops the producer (its `return()` runs, so it fetches no more).
 */
export async function sendJsonStream(req: Request, res: Response, status: number, chunks: AsyncIterable<string>, logger: Logger): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();

  let gone = false;
  const onClose = () => {
    gone = true;
  };
  res.on('close', onClose);
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  let done = first.done ?? false;
  try {
    if (!done && !(await write(res, first.value))) return;
    while (!done) {
      const next = await iterator.next();
      done = next.done ?? false;
      if (gone) return;
      if (!done && !(await write(res, next.value))) return;
    }
    res.end();
  } catch (err) {
    const reference = randomUUID();
    logger.error(
      {
        err,
        reference,
        requestId: requestIdOf(res),
        method: req.method,
        path: req.baseUrl + req.path,
        ...(err instanceof UpstreamError ? { upstream: err.upstream } : {}),
      },
      'streamed response failed after its first chunk; connection aborted',
    );
    res.destroy();
  } finally {
    res.off('close', onClose);
    // Stops a producer left mid-way (client gone, or a failed write); a finished one ignores it.
    if (!done) await iterator.return?.().catch(() => undefined);
  }

  /** False when the client is gone (nothing more should be produced). */
  async function write(target: Response, chunk: string): Promise<boolean> {
    if (gone || target.destroyed) return false;
    if (chunk.length === 0 || target.write(chunk)) return true;
    await new Promise<void>((resolve) => {
      const settle = () => {
        target.off('drain', settle);
        target.off('close', settle);
        resolve();
      };
      target.on('drain', settle);
      target.on('close', settle);
    });
    return !gone && !target.destroyed;
  }
}
