import { memberPath } from './text';

/** How much structure a JSON request body may have (its size is limited elsewhere, in bytes). */
export interface JsonShapeLimits {
  /** Values of every kind, containers included (an object with two members is three). */
  maxValues: number;
  /** Containers inside containers: `{"a":[1]}` is two deep. */
  maxDepth: number;
}

/** Why a body's structure is refused, naming the member as the contract names fields. */
export interface JsonShapeFault {
  property: string;
  message: string;
}

interface Frame {
  object: boolean;
  /** An object's member names so far (as decoded), for duplicates. */
  keys: Set<string> | null;
  /** The member being read: an object's last key, an array's index. */
  at: string;
  /** An object expects a member name next (after `{` and `,`). */
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The first reason a JSON text's structure is refused, or null, read from its bytes before it is
 * parsed: more values than `maxValues` (a few megabytes of `[0,0,...]` or `{}` cost seconds of one
 * thread to parse and walk, where the largest order the contract allows has a few thousand), more
 * nesting than `maxDepth`, or a member name twice in one object (RFC 8259 leaves which one counts
 * to the reader: a proxy that reads the first and this service the last would see different
 * requests). Names compare as decoded (`"a"` and `"\u0061"` are one name). Bytes that are not JSON
 * are left to the parser: this only counts what it can see (UTF-8's multi-byte sequences never hold
 * an ASCII byte, so strings are skipped exactly).
 */
export function jsonShapeFault(text: Uint8Array, limits: JsonShapeLimits): JsonShapeFault | null {
  const frames: Frame[] = [];
  let values = 0;
  // The last byte outside strings that is not white space (0 before the first).
  let last = 0;
  const tooMany = { property: 'body', message: `The request body holds more than ${limits.maxValues} JSON values.` };
  const pathTo = (depth: number, last?: string): string => {
    const segments = frames.slice(0, depth).map((f) => f.at);
    if (last !== undefined) segments.push(last);
    return segments.length > 0 ? memberPath(segments) : 'body';
  };
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!;
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    const before = last;
    last = byte;
    // A value starts the text, follows a member's colon, or opens or follows a comma in an array.
    const inArray = frames.length > 0 && !frames[frames.length - 1]!.object;
    if (before === 0 || before === COLON || (inArray && (before === COMMA || (before === OPEN_ARRAY && byte !== CLOSE_ARRAY)))) {
      if (++values > limits.maxValues) return tooMany;
    }
    if (byte === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length && text[i] !== QUOTE; i++) {
        if (text[i] === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      const frame = frames[frames.length - 1];
      if (frame?.object && frame.expectKey) {
        const key = memberName(text, start, i, escaped);
        if (frame.keys!.has(key)) return { property: pathTo(frames.length - 1, key), message: 'This member is given twice; give it once.' };
        frame.keys!.add(key);
        frame.at = key;
        frame.expectKey = false;
      }
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (frames.length >= limits.maxDepth) return { property: pathTo(frames.length), message: `Nests deeper than ${limits.maxDepth} levels.` };
      const object = byte === OPEN_OBJECT;
      frames.push({ object, keys: object ? new Set() : null, at: object ? '' : '0', expectKey: object });
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      frames.pop();
    } else if (byte === COMMA) {
      const frame = frames[frames.length - 1];
      if (frame?.object) frame.expectKey = true;
      else if (frame) frame.at = String(Number(frame.at) + 1);
    }
  }
  return null;
}

/** A member name as JSON.parse reads it (escapes decoded); its raw text when it does not parse (the parser refuses it later). */
function memberName(text: Uint8Array, start: number, end: number, escaped: boolean): string {
  const raw = Buffer.from(text.buffer, text.byteOffset + start, Math.min(end + 1, text.length) - start).toString('utf8');
  if (!escaped) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
}
