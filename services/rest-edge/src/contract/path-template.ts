/**
 * The regular-expression source of an OpenAPI path template (`/orders/{orderUuid}`): literal parts
 * escaped, each `{param}` one path segment, captured (still percent-encoded). Anchored at the
 * start only: callers say what may follow.
 */
export function templateSource(template: string): string {
  const source = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return `^${source}`;
}
