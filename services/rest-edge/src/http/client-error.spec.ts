import { clientErrorAnswer, requestLineOverflows } from './client-error';

describe("the answers to Node's parser refusals", () => {
  const line = (target: string) => Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`, 'latin1');

  it('a request line that had not ended where the parser gave up is 414; headers over the limit are 431', () => {
    const longLine = line(`/${'a'.repeat(20_000)}`);
    expect(requestLineOverflows(longLine, 16_390)).toBe(true);
    expect(requestLineOverflows(Buffer.from(`GET /${'a'.repeat(20_000)}`, 'latin1'), 16_390)).toBe(true);
    expect(requestLineOverflows(Buffer.from(`GET / HTTP/1.1\r\nX: ${'a'.repeat(20_000)}`, 'latin1'), 16_390)).toBe(false);
    // a later read of a head that came in pieces: not known to be the request line
    expect(requestLineOverflows(Buffer.from('a'.repeat(4000), 'latin1'), 4000)).toBe(false);
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW', { bytes: longLine, parsed: 16_390 }).problemType).toBe('uri-too-long');
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW', { bytes: Buffer.from('a'.repeat(4000), 'latin1'), parsed: 4000 }).problemType).toBe('headers-too-large');
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW').problemType).toBe('headers-too-large');
  });

  it('time-outs are 408 and anything else the parser refuses is 400', () => {
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT').status).toBe(408);
    expect(clientErrorAnswer('HPE_INVALID_METHOD').status).toBe(400);
  });
});
