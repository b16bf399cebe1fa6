import net from 'node:net';
import { freePort } from '@pf/platform/testing/infra';
import { isDatabaseUnreachable } from '@pf/platform/db/unreachable';
import { createPrismaClient } from '../src/db';

/**
 * What Prisma 7 (through the pg driver adapter) throws when the database is out of reach is taken
 * for an outage (answered `unavailable`, logged once per 10 s), not for a bug: each query shape
 * reports it differently.
 */
describe("Prisma's errors of a database out of reach count as an outage", () => {
  it('nothing listening: a model query (P1001) and a raw query (P2010 with the adapter error kind)', async () => {
    const prisma = createPrismaClient(`postgres://postgres@127.0.0.1:${await freePort()}/x`);
    try {
      const model = await prisma.team.findMany().then(() => undefined, (err: unknown) => err);
      const raw = await prisma.$queryRaw`SELECT 1`.then(() => undefined, (err: unknown) => err);
      expect({ model: isDatabaseUnreachable(model), raw: isDatabaseUnreachable(raw) }).toEqual({ model: true, raw: true });
    } finally {
      await prisma.$disconnect();
    }
  });

  it('a server that never answers: an interactive transaction that gets no connection in time (P2028)', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const prisma = createPrismaClient(`postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/x`);
    try {
      const failure = await prisma.$transaction(async (tx) => tx.team.findMany(), { maxWait: 200 }).then(() => undefined, (err: unknown) => err);
      expect({ code: (failure as { code?: string }).code, unreachable: isDatabaseUnreachable(failure) }).toEqual({ code: 'P2028', unreachable: true });
    } finally {
      await prisma.$disconnect().catch(() => undefined);
      silent.close();
    }
  });
});
