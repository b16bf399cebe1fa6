import type { Violation } from './problems';

/**
 * Text the platform cannot keep: PostgreSQL refuses U+0000 in text, and an unpaired UTF-16
 * surrogate (JSON's `"\ud800"`) in the JSON of an event. Input holding either is the caller's
 * mistake, answered as a validation failure naming the field, never a 500 from the database.
 */
export function unstorableTextMessage(value: string): string | null {
  if (value.includes('\u0000')) return 'Must not contain the NUL character (U+0000).';
  if (!isWellFormedText(value)) return 'Must be valid Unicode text (it holds an unpaired surrogate).';
  return null;
}

/** String.prototype.isWellFormed (Node 20), typed here: the project's TypeScript lib predates it. */
function isWellFormedText(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Characters as the contract and PostgreSQL count them: code points, so an emoji is one. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** Whether `value` has more than `max` characters (code points); cheap for the usual short value. */
export function longerThan(value: string, max: number): boolean {
  // A code point takes one or two UTF-16 units: up to max units is never too long, over 2 * max always is.
  if (value.length <= max) return false;
  if (value.length > 2 * max) return true;
  return characterCount(value) > max;
}

/** Member names that read unambiguously after a dot (hyphens included: `active-state`). */
const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * A member's path as the contract names fields: `orderLines[7].product.sku`, `active-state`,
 * `metadata["a b"]` (array indexes in brackets, other names quoted where a dot would misread).
 */
export function memberPath(segments: readonly string[]): string {
  let out = '';
  for (const s of segments) {
    if (/^(0|[1-9][0-9]*)$/.test(s)) out += `[${s}]`;
    else if (PLAIN_NAME.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Members named at most by one refusal: enough to fix the request, bounded for a hostile one. */
export const MAX_UNSTORABLE_MEMBERS_NAMED = 20;

interface MemberNode {
  value: unknown;
  key: string | null;
  parent: MemberNode | null;
}

/**
 * The members of a request (a JSON body, a GraphQL field's arguments) holding text the platform
 * cannot keep (see `unstorableTextMessage`), in keys or values, each named by `memberPath` with
 * why; at most MAX_UNSTORABLE_MEMBERS_NAMED. `whole` names the value itself when it is such text.
 * Walked without recursion and without copying paths: a hostile body may nest arrays a hundred
 * thousand deep within the size limit.
 */
export function unstorableTextMembers(value: unknown, whole = 'body'): Violation[] {
  const found: Violation[] = [];
  const pathOf = (node: MemberNode): string => {
    const segments: string[] = [];
    for (let n: MemberNode | null = node; n !== null && n.key !== null; n = n.parent) segments.push(n.key);
    return segments.length ? memberPath(segments.reverse()) : whole;
  };
  const stack: MemberNode[] = [{ value, key: null, parent: null }];
  while (stack.length > 0 && found.length < MAX_UNSTORABLE_MEMBERS_NAMED) {
    const node = stack.pop()!;
    const current = node.value;
    const refusal = (node.key === null ? null : unstorableTextMessage(node.key)) ?? (typeof current === 'string' ? unstorableTextMessage(current) : null);
    if (refusal) found.push({ property: pathOf(node), message: refusal });
    else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: String(i), parent: node });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, key, parent: node });
      }
    }
  }
  return found;
}
