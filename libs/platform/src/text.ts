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
