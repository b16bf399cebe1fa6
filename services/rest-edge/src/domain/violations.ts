import type { Violation } from '@pf/platform/problems';
import { memberPath } from '@pf/platform/text';
/**
 * Names an offending request field the way the contract does (spec section 7): a JSON path
 * within the body or the query, without a `body.`/`query.` prefix — `orderLines[7].product.sku`,
 * `active-state`. The validator reports JSON pointers with the request part first
 * (`/body/orderLines/7/product/sku`, `/query/active-state`). A query parameter is named by its
 * name alone: `status=foo` (or a second `status` that is wrong) names `status`, the parameter the
 * client sent, not `status[0]`, an item of the list the validator made of it.
 */
export function propertyOfPointer(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [part, ...rest] = segments;
  if (part === undefined || !REQUEST_PARTS.has(part)) return segments.length ? memberPath(segments) : 'body';
  // The body (or query) as a whole, e.g. "must be object".
  if (rest.length === 0) return part === 'body' ? 'body' : part;
  if (part === 'query') return rest[0]!;
  return memberPath(rest);
}

const REQUEST_PARTS = new Set(['body', 'query', 'params', 'path', 'headers', 'cookies']);

/**
 * One violation per field, in the order the fields were first named, its messages joined: the
 * validator reports each failed keyword, and a query parameter sent twice (`sort=a&sort=b`) or
 * whose list items fail is one field of the request (spec section 7: `violations[].property`
 * names each field).
 */
export function onePerProperty(violations: readonly Violation[]): Violation[] {
  const byProperty = new Map<string, string[]>();
  for (const v of violations) {
    const messages = byProperty.get(v.property) ?? [];
    if (!messages.includes(v.message)) messages.push(v.message);
    byProperty.set(v.property, messages);
  }
  return [...byProperty].map(([property, messages]) => ({ property, message: messages.join('; ') }));
}

/** One failure as the request validator reports it (a JSON pointer and the keyword that failed). */
export interface ValidationFailure {
  path: string;
  message: string;
  errorCode?: string;
}

/**
 * A list over its maximum length is refused on the count alone (spec rule O4: "at most 500
 * `orderLines` per request (refused on the count alone)"): what is wrong inside its items is not
 * reported beside it, however many they are.
 */
export function onTheCountAlone(failures: ValidationFailure[]): ValidationFailure[] {
  const overlong = failures.filter((f) => f.errorCode === 'maxItems.openapi.validation').map((f) => `${f.path}/`);
  if (overlong.length === 0) return failures;
  return failures.filter((f) => !overlong.some((list) => f.path.startsWith(list)));
}
