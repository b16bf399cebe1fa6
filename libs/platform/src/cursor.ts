/**
 * A place in rows ordered by an instant and then a uuid (products by creation, orders by last
 * change): where a cursor page continues, stable while rows are added, changed or removed, which
 * a page number is not.
 */
export interface Position {
  at: Date;
  uuid: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor of a position: opaque to clients (base64url of `[ISO instant, uuid]`), so what it holds may change. */
export function encodePosition(position: Position): string {
  return Buffer.from(JSON.stringify([position.at.toISOString(), position.uuid]), 'utf8').toString('base64url');
}

/** The position of a cursor `encodePosition` made, or undefined for any other text. */
export function decodePosition(text: string): Position | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [iso, uuid] = parsed as unknown[];
  if (typeof iso !== 'string' || typeof uuid !== 'string' || !UUID.test(uuid)) return undefined;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== iso) return undefined;
  return { at, uuid: uuid.toLowerCase() };
}
