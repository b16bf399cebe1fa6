import { templateSource } from '../contract/path-template';
import { CHANNEL_SCOPED, type AccessRule } from '../domain/access';

interface RuleEntry {
  method: string;
  pattern: RegExp;
  access: AccessRule;
}

/**
 * Which access rule an endpoint applies, found before routing (authentication precedes
 * validation and routing). Paths are the OpenAPI templates relative to the channel
 * (`/orders/{orderUuid}`); anything unknown is channel-scoped.
 */
export class AccessRules {
  private readonly entries: RuleEntry[];

  constructor(routes: readonly { method: string; path: string; access: AccessRule }[]) {
    this.entries = routes.map((r) => ({ method: r.method.toUpperCase(), pattern: templatePattern(r.path), access: r.access }));
  }

  ruleFor(method: string, subPath: string): AccessRule {
    const path = subPath.length > 1 && subPath.endsWith('/') ? subPath.slice(0, -1) : subPath || '/';
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const e of this.entries) if (e.method === m && e.pattern.test(path)) return e.access;
    return CHANNEL_SCOPED;
  }
}

function templatePattern(template: string): RegExp {
  // Case-sensitive, as the edge routes (edge.ts): `/TOKEN` is no path of the document.
  return new RegExp(`${templateSource(template)}$`);
}
