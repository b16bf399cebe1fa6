import type { Identity } from '@pf/platform/identity';
import { channelIdOf } from './domain/codes';
import { createPrismaClient } from './db';
import { AccountsUseCases } from './use-cases';

export interface DemoAccountOptions {
  databaseUrl: string;
  teamCode?: string;
  teamName?: string;
  channelCode?: string;
  channelName?: string;
}

export interface DemoAccount {
  teamCode: string;
  channelId: string;
  /** The freshly issued API token (shown once: this is the only place it exists in clear). */
  token: string;
}

/** The identity the seeder acts with: a platform operator. */
const SEEDER: Identity = { kind: 'service', service: 'accounts-seed' };

/**
 * Makes sure a demo team with one channel exists and issues that channel a new token, through
 * the ordinary use cases (so the usual events are written to the outbox). Safe to call again:
 * an existing team and channel are kept, and the new token revokes the previous one.
 */
export async function seedDemoAccount(opts: DemoAccountOptions): Promise<DemoAccount> {
  const teamCode = opts.teamCode ?? 'demo';
  const channelCode = opts.channelCode ?? 'shop';
  const channelId = channelIdOf(teamCode, channelCode);
  const prisma = createPrismaClient(opts.databaseUrl, 2);
  try {
    const accounts = new AccountsUseCases({ prisma });
    if (!(await accounts.getTeam(SEEDER, teamCode))) {
      await accounts.createTeam(SEEDER, { code: teamCode, name: opts.teamName ?? 'Demo team' });
    }
    if (!(await accounts.getChannel(SEEDER, channelId))) {
      await accounts.createChannel(SEEDER, { teamCode, code: channelCode, name: opts.channelName ?? 'Demo shop' });
    }
    const issued = await accounts.issueApiToken(SEEDER, channelId);
    return { teamCode, channelId, token: issued.token };
  } finally {
    await prisma.$disconnect();
  }
}
