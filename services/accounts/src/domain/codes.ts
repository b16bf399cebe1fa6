import type { Violation } from '@pf/platform/problems';

/**
 * Team codes: 2-32 lowercase letters and digits. No hyphen, because the hyphen separates the team
 * code from the channel code in a channel id, so `<team>-<channel>` splits unambiguously at the
 * first hyphen.
 */
export const TEAM_CODE = /^[a-z0-9]{2,32}$/;

/**
 * Channel codes: 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or
 * digit (so an id never has `--` at the team boundary or a trailing hyphen).
 */
export const CHANNEL_CODE = /^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$/;

/** The code of every team's Standard channel (id `<team>-standard`). */
export const STANDARD_CHANNEL_CODE = 'standard';

export const NAME_MAX_LENGTH = 200;

/** The composite channel id: team code, hyphen, channel code. */
export function channelIdOf(teamCode: string, channelCode: string): string {
  return `${teamCode}-${channelCode}`;
}

/** Splits a channel id at its first hyphen; undefined when it cannot be one of ours. */
export function parseChannelId(channelId: string): { teamCode: string; channelCode: string } | undefined {
  const at = channelId.indexOf('-');
  if (at < 0) return undefined;
  const teamCode = channelId.slice(0, at);
  const channelCode = channelId.slice(at + 1);
  if (!TEAM_CODE.test(teamCode) || !CHANNEL_CODE.test(channelCode)) return undefined;
  return { teamCode, channelCode };
}

export function teamCodeViolations(code: string, property: string): Violation[] {
  if (TEAM_CODE.test(code)) return [];
  return [{ property, message: 'A team code has 2 to 32 characters: lowercase letters and digits (no hyphen).' }];
}

export function channelCodeViolations(code: string, property: string): Violation[] {
  if (CHANNEL_CODE.test(code)) return [];
  return [
    {
      property,
      message:
        'A channel code has 2 to 32 characters: lowercase letters, digits and hyphens, starting and ending with a letter or digit.',
    },
  ];
}

/** Names are free text, but not blank and not unbounded. Returns the trimmed name or violations. */
export function nameViolations(name: string, property: string): Violation[] {
  const trimmed = name.trim();
  if (trimmed.length === 0) return [{ property, message: 'A name must not be blank.' }];
  if (trimmed.length > NAME_MAX_LENGTH) return [{ property, message: `A name has at most ${NAME_MAX_LENGTH} characters.` }];
  return [];
}
