import { eventually } from '@pf/platform/testing/infra';
import { WebhookSender, type AttemptRequest } from '../src/delivery/https-sender';
import { parseAddressRanges } from '../src/domain/url-policy';
import { TableResolver, v4 } from './support/harness';
import { createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

/**
 * The sender's keep-alive sockets against receivers that never close theirs (the receiver here
 * keeps an idle connection 30 s): idle sockets are few and short-lived whatever the receivers'
 * names and addresses do.
 */
describe('the webhook sender keeps few idle sockets, briefly', () => {
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let second: TestReceiver;
  const senders: WebhookSender[] = [];
  const dns = new TableResolver();

  beforeAll(async () => {
    cert = createTestCertificate(['*.hooks.example.com']);
    receiver = await new TestReceiver(cert).start('127.0.0.1');
    // The same port on a second loopback address: a name answering both reaches either.
    second = await new TestReceiver(cert).start('127.0.0.2', receiver.port);
  });

  afterAll(async () => {
    for (const s of senders) s.close();
    await receiver?.stop();
    await second?.stop();
    cert?.remove();
  });

  const sender = (opts: { maxIdleSockets?: number; idleSocketTimeoutMs?: number }) => {
    const s = new WebhookSender({ resolver: dns, policy: { allowedRanges: parseAddressRanges(['127.0.0.0/8']) }, timeoutMs: 5_000, extraCa: cert.cert, ...opts });
    senders.push(s);
    return s;
  };
  const attempt = (host: string): AttemptRequest => ({
    registeredUrl: `https://${host}:${receiver.port}/in`,
    notificationType: 'order-created',
    body: Buffer.from('{"notificationType":"order-created"}'),
    signature: '0'.repeat(64),
    deliveryId: host,
    attempt: 1,
  });
  const send = async (s: WebhookSender, host: string) => {
    const outcome = await s.attempt(attempt(host));
    expect(outcome.result).toEqual({ kind: 'response', statusCode: 200 });
  };
  const open = () => receiver.openConnections + second.openConnections;

  it('closes what is set free beyond the idle limit: a new name (or new addresses) each attempt leaves no pile of sockets', async () => {
    const s = sender({ maxIdleSockets: 5 });
    for (let i = 0; i < 20; i++) {
      dns.set(`n${i}.hooks.example.com`, [v4('127.0.0.1')]);
      await send(s, `n${i}.hooks.example.com`);
    }
    expect(receiver.connections).toBeGreaterThanOrEqual(20);
    await eventually(() => (open() <= 5 ? true : undefined), 5_000, 50);
    s.close();
    await eventually(() => (open() === 0 ? true : undefined), 5_000, 50);
  });

  it('closes an idle socket after its time, though the receiver would keep it', async () => {
    const s = sender({ idleSocketTimeoutMs: 300 });
    dns.set('idle.hooks.example.com', [v4('127.0.0.1')]);
    await send(s, 'idle.hooks.example.com');
    expect(open()).toBe(1);
    await eventually(() => (open() === 0 ? true : undefined), 5_000, 50);
  });

  it('reuses a socket when the name answers the same addresses in another order', async () => {
    const s = sender({});
    dns.set('rr.hooks.example.com', (n) => (n % 2 ? [v4('127.0.0.1'), v4('127.0.0.2')] : [v4('127.0.0.2'), v4('127.0.0.1')]));
    const before = receiver.connections + second.connections;
    for (let i = 0; i < 4; i++) await send(s, 'rr.hooks.example.com');
    expect(receiver.connections + second.connections - before).toBe(1);
  });
});
