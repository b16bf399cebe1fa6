// pg ships no types for its utils module; batch.ts uses only this function of it.
declare module 'pg/lib/utils' {
  export function prepareValue(value: unknown): unknown;
}
