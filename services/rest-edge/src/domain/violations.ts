import type { Violation } from '@pf/platform/problems';
import { unstorableTextMessage } from '@pf/platform/text';
/**
 * Names an offending request field the way the contract does (spec section 7): a JSON path
 * within the body or the query, without a `body.`/`query.` prefix — `orderLines[7].product.sku`,
 * `active-state`. The validator reports JSON pointers with the request part first
 * (`/body/orderLines/7/product/sku`, `/query/active-state`).
 */
export function propertyOfPointer(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [part, ...rest] = segments;
  if (part === undefined || !REQUEST_PARTS.has(part)) return segments.length ? joinPath(segments) : 'body';
  // The body (or query) as a whole, e.g. "must be object".
  if (rest.length === 0) return part === 'body' ? 'body' : part;
  return joinPath(rest);
}

const REQUEST_PARTS = new Set(['body', 'query', 'params', 'path', 'headers', 'cookies']);

/** Member names that read unambiguously after a dot (hyphens included: `active-state`). */
const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function joinPath(segments: string[]): string {
  let out = '';
  for (const s of segments) {
    if (/^(0|[1-9][0-9]*)$/.test(s)) out += `[${s}]`;
    else if (PLAIN_NAME.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
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

/** Members named at most by one refusal: enough to fix the request, bounded for a hostile one. */
export const MAX_UNSTORABLE_MEMBERS_NAMED = 20;

interface BodyNode {
  value: unknown;
  key: string | null;
  parent: BodyNode | null;
}

/**
 * The members of a request body holding text the platform cannot keep (a NUL character, an
 * unpaired surrogate: see `unstorableTextMessage`), each named as the contract names fields
 * (`orderLines[0].product.sku`) with why; at most MAX_UNSTORABLE_MEMBERS_NAMED. A 422 naming the
 * field, never a 500 from the database. Walked without recursion and without copying paths: a hostile
 * body may nest arrays a hundred thousand deep within the size limit.
 */
export function unstorableTextMembers(body: unknown): Violation[] {
  const found: Violation[] = [];
  const pathOf = (node: BodyNode): string => {
    const segments: string[] = [];
    for (let n: BodyNode | null = node; n !== null && n.key !== null; n = n.parent) segments.push(n.key);
    return segments.length ? joinPath(segments.reverse()) : 'body';
  };
  const stack: BodyNode[] = [{ value: body, key: null, parent: null }];
  while (stack.length > 0 && found.length < MAX_UNSTORABLE_MEMBERS_NAMED) {
    const node = stack.pop()!;
    const { value } = node;
    const refusal = (node.key === null ? null : unstorableTextMessage(node.key)) ?? (typeof value === 'string' ? unstorableTextMessage(value) : null);
    if (refusal) found.push({ property: pathOf(node), message: refusal });
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: String(i), parent: node });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, key, parent: node });
      }
    }
  }
  return found;
}
