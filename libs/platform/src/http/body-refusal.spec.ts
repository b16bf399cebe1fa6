import { bodyRefusal } from './body-refusal';

const error = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);

describe('bodyRefusal', () => {
  it("words body-parser's refusals, a body that does not decode included", () => {
    expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed' }))).toBe('The request body is not valid JSON.');
    expect(bodyRefusal(error({ status: 413, type: 'entity.too.large' }))).toBe('The request body is too large.');
    expect(bodyRefusal(error({ status: 415, type: 'charset.unsupported' }))).toMatch(/UTF-8/);
    expect(bodyRefusal(error({ status: 400, code: 'Z_DATA_ERROR' }))).toBe('The request body does not decode as its Content-Encoding says.');
  });

  it('a bare JSON value, which strict parsing refuses like broken JSON, is told apart', () => {
    for (const body of ['null', '12', '"x"', ' true ']) {
      expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed', body }))).toBe('The request body must be a JSON object, not a bare value.');
    }
    expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed', body: '{"a":' }))).toBe('The request body is not valid JSON.');
  });

  it('leaves everything else alone: other errors, a verify step, statuses that are not 4xx', () => {
    expect(bodyRefusal(new Error('boom'))).toBeUndefined();
    expect(bodyRefusal(error({ status: 403, type: 'entity.verify.failed' }))).toBeUndefined();
    expect(bodyRefusal(error({ status: 500, type: 'entity.parse.failed' }))).toBeUndefined();
    expect(bodyRefusal('entity.parse.failed')).toBeUndefined();
  });
});
