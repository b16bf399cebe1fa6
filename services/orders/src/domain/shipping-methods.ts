import type { Violation } from '@pf/platform/problems';
import type { ShippingMethodChoice, ShippingMethodFacts } from './model';

/**
 * The shipping method a confirmation uses: the one named (active, not deleted, serving the
 * destination country; else 422 naming `shippingMethodCode`), or when none is named the team's
 * preferred method for the destination (lowest priority, then code).
 */
export function chooseShippingMethod(
  methods: readonly ShippingMethodFacts[],
  requested: string | null | undefined,
  countryCode: string | null,
  property = 'shippingMethodCode',
): { ok: true; method: ShippingMethodChoice } | { ok: false; violations: Violation[] } {
  const serves = (m: ShippingMethodFacts) => m.countryCodes.length === 0 || (countryCode !== null && m.countryCodes.includes(countryCode));
  const usable = methods.filter((m) => m.active && !m.deleted);
  if (requested !== null && requested !== undefined) {
    const method = usable.find((m) => m.code === requested);
    if (!method) return { ok: false, violations: [{ property, message: `The team has no active shipping method "${requested}".` }] };
    if (!serves(method)) return { ok: false, violations: [{ property, message: `Shipping method "${requested}" does not ship to ${countryCode ?? 'this destination'}.` }] };
    return { ok: true, method: { code: method.code, name: method.name } };
  }
  const preferred = usable.filter(serves).sort((a, b) => a.priority - b.priority || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))[0];
  if (!preferred) return { ok: false, violations: [{ property, message: `The team has no active shipping method serving ${countryCode ?? 'this destination'}; name one.` }] };
  return { ok: true, method: { code: preferred.code, name: preferred.name } };
}
