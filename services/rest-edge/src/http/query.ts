import { parse, type ParsedUrlQuery } from 'node:querystring';

/** An instant whose offset sign a form decoder turned into a space (`...T08:00:00 01:00`). */
const OFFSET_SIGN_DECODED_AS_SPACE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}(?::?\d{2})?)$/;

/**
 * The query string as express's default ("simple") parser reads it, form-decoded (a `+` is a
 * space, as browsers and URLSearchParams encode one), except in the named timestamp parameters:
 * there a space can only be the `+` of an offset written as-is (`updated-since=...T08:00:00+01:00`,
 * the documented `allowReserved` form), so it is read back as `+`.
 */
export function queryParser(instantParameters: readonly string[]): (query: string) => ParsedUrlQuery {
  const repair = (value: string) => value.replace(OFFSET_SIGN_DECODED_AS_SPACE, '$1+$2');
  return (query) => {
    // Every parameter: querystring keeps the first 1000 by default and drops the rest silently, so
    // a filter after 1000 unknown parameters went unapplied and unrefused. The request line is
    // bounded by the server's header size limit, and with it the count.
    const parsed = parse(query, undefined, undefined, { maxKeys: 0 });
    for (const name of instantParameters) {
      const value = parsed[name];
      if (typeof value === 'string') parsed[name] = repair(value);
      else if (Array.isArray(value)) parsed[name] = value.map(repair);
    }
    return parsed;
  };
}
