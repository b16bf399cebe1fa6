import { bodyRefusal, checkJsonBody, refuseInvalidUtf8 } from './body-refusal';

const error = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);

describe('bodyRefusal', () => {
  it("words body-parser's refusals, a body that does not decode included", () => {
    expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed' }))).toEqual({ property: 'body', message: 'The request body is not valid JSON.' });
    expect(bodyRefusal(error({ status: 413, type: 'entity.too.large' }))).toEqual({ property: 'body', message: 'The request body is too large.' });
    expect(bodyRefusal(error({ status: 415, type: 'charset.unsupported' }))?.message).toMatch(/UTF-8/);
    expect(bodyRefusal(error({ status: 400, type: 'request.aborted' }))).toEqual({ property: 'body', message: 'The request body was not sent in full.' });
    expect(bodyRefusal(error({ status: 400, code: 'Z_DATA_ERROR' }))).toEqual({ property: 'body', message: 'The request body does not decode as its Content-Encoding says.' });
  });

  it('a bare JSON value, which strict parsing refuses like broken JSON, is told apart', () => {
    for (const body of ['null', '12', '"x"', ' true ']) {
      expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed', body }))).toEqual({ property: 'body', message: 'The request body must be a JSON object, not a bare value.' });
    }
    expect(bodyRefusal(error({ status: 400, type: 'entity.parse.failed', body: '{"a":' }))).toEqual({ property: 'body', message: 'The request body is not valid JSON.' });
  });

  it('leaves everything else alone: other errors, a verify step, statuses that are not 4xx', () => {
    expect(bodyRefusal(new Error('boom'))).toBeUndefined();
    expect(bodyRefusal(error({ status: 403, type: 'entity.verify.failed' }))).toBeUndefined();
    expect(bodyRefusal(error({ status: 500, type: 'entity.parse.failed' }))).toBeUndefined();
    expect(bodyRefusal('entity.parse.failed')).toBeUndefined();
  });
});

describe('the body must be UTF-8', () => {
  it('refuses a Content-Type naming another charset body-parser would decode (utf-16): the checks on the bytes read UTF-8', () => {
    // ASCII-range UTF-16 is valid UTF-8 byte for byte: only the declared charset tells them apart.
    const utf16 = Buffer.from('{"a":"b","a":"c"}', 'utf16le');
    for (const charset of ['utf-16', 'utf-16le', 'UTF-16BE', 'utf-32']) {
      let refusal: unknown;
      try {
        checkJsonBody({ maxValues: 10, maxDepth: 3 })(null, null, utf16, charset);
      } catch (err) {
        refusal = err;
      }
      expect(bodyRefusal(refusal)).toEqual({ property: 'body', message: 'The request body must be UTF-8 JSON without content encoding.' });
    }
    expect(() => refuseInvalidUtf8(null, null, Buffer.from('{}'), 'UTF-8')).not.toThrow();
  });

  it('passes UTF-8, emoji and all; refuses bytes that are not', () => {
    expect(() => refuseInvalidUtf8(null, null, Buffer.from('{"a":"Zoë 😀"}'))).not.toThrow();
    expect(() => refuseInvalidUtf8(null, null, Buffer.alloc(0))).not.toThrow();
    for (const bytes of [[0xff, 0xfe], [0xc0, 0xaf], [0x7b, 0xed, 0xa0, 0x80, 0x7d]]) {
      let refusal: unknown;
      try {
        refuseInvalidUtf8(null, null, Buffer.from(bytes));
      } catch (err) {
        refusal = err;
      }
      // body-parser passes its status and type on: bodyRefusal words it.
      expect(refusal).toMatchObject({ status: 400 });
      expect(bodyRefusal(refusal)).toEqual({ property: 'body', message: 'The request body is not valid UTF-8.' });
    }
  });
});


describe('checkJsonBody', () => {
  const check = checkJsonBody({ maxValues: 10, maxDepth: 3 });
  const refusalOf = (text: string) => {
    try {
      check(null, null, Buffer.from(text));
      return undefined;
    } catch (err) {
      return bodyRefusal(err);
    }
  };

  it('refuses what is not UTF-8 first, then a structure over its limits or with a member twice, naming it', () => {
    expect(refusalOf('{"a":[1,2],"b":{"c":"d"}}')).toBeUndefined();
    let notUtf8: unknown;
    try {
      check(null, null, Buffer.from([0x7b, 0xff, 0x7d]));
    } catch (err) {
      notUtf8 = err;
    }
    expect(bodyRefusal(notUtf8)).toEqual({ property: 'body', message: 'The request body is not valid UTF-8.' });
    expect(refusalOf(`[${Array(20).fill(0).join(',')}]`)).toEqual({ property: 'body', message: 'The request body holds more than 10 JSON values.' });
    expect(refusalOf('{"a":{"b":{"c":{}}}}')).toEqual({ property: 'a.b.c', message: 'Nests deeper than 3 levels.' });
    expect(refusalOf('{"a":{"b":1,"b":2}}')).toEqual({ property: 'a.b', message: 'This member is given twice; give it once.' });
  });
});
