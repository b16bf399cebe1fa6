const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for the textual form of a uuid (any version, either case). Anything else names no product,
 * so the edge answers it the same 404 as an unknown one without asking upstream.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
