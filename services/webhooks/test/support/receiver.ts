import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A self-signed certificate for the given names, made with openssl for this test run. */
export interface TestCertificate {
  dir: string;
  certPath: string;
  cert: string;
  key: string;
  remove(): void;
}

export function createTestCertificate(names: string[]): TestCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-webhooks-cert-'));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyPath, '-out', certPath, '-days', '1',
    '-subj', `/CN=${names[0]}`,
    '-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
  ], { stdio: 'ignore' });
  return {
    dir,
    certPath,
    cert: readFileSync(certPath, 'utf8'),
    key: readFileSync(keyPath, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** One webhook as the receiver got it. */
export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw bytes, as they arrived. */
  body: Buffer;
  json: Record<string, unknown>;
  /** Which known secret the signature verified with (its label), or null when none did. */
  verifiedWith: string | null;
  at: number;
  deliveryId: string;
  attempt: number;
}

/** How the receiver answers one request. */
export type Behaviour = { status: number; location?: string } | { hang: true } | { delayMs: number; status: number };

/**
 * A real HTTPS receiver, as an integration would run one: verifies every `Signature` with its
 * own HMAC over the raw bytes against the secrets it was told, in constant time, and answers
 * per a script of behaviours (default 200 at once).
 */
export class TestReceiver {
  readonly received: Received[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly script: Behaviour[] = [];
  private defaultBehaviour: Behaviour = { status: 200 };
  private readonly sockets = new Set<net.Socket>();
  private server?: https.Server;
  port = 0;
  connections = 0;

  constructor(private readonly cert: TestCertificate) {}

  async start(host = '127.0.0.1', port = 0): Promise<this> {
    this.server = https.createServer({ key: this.cert.key, cert: this.cert.cert, keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const signature = String(req.headers.signature ?? '');
        let verifiedWith: string | null = null;
        for (const [label, secret] of this.secrets) {
          const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
          const given = Buffer.from(signature, 'hex');
          if (/^[0-9a-f]{64}$/.test(signature) && given.length === expected.length && timingSafeEqual(given, expected)) verifiedWith = label;
        }
        this.received.push({
          path: req.url ?? '',
          headers: req.headers,
          body,
          json: JSON.parse(body.toString('utf8')) as Record<string, unknown>,
          verifiedWith,
          at: Date.now(),
          deliveryId: String(req.headers['webhook-delivery-id'] ?? ''),
          attempt: Number(req.headers['webhook-attempt'] ?? 0),
        });
        const behaviour = this.script.shift() ?? this.defaultBehaviour;
        if ('hang' in behaviour) return; // never answers: the sender's time-out decides
        const answer = () => {
          res.writeHead(behaviour.status, 'location' in behaviour && behaviour.location ? { location: behaviour.location } : {});
          res.end('ok');
        };
        if ('delayMs' in behaviour) setTimeout(answer, behaviour.delayMs);
        else answer();
      });
    });
    this.server.on('connection', (socket: net.Socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  /** Connections open now (a client's idle keep-alive sockets included). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** A secret to verify signatures with, under a label the tests read back. */
  trust(label: string, secret: string): void {
    this.secrets.set(label, secret);
  }

  /** Answers the next requests as scripted, in order; then the default again. */
  answer(...behaviours: Behaviour[]): void {
    this.script.push(...behaviours);
  }

  setDefault(behaviour: Behaviour): void {
    this.defaultBehaviour = behaviour;
  }

  of(type: string): Received[] {
    return this.received.filter((r) => r.json.notificationType === type);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A plain TCP listener that only counts who connects: the loopback target of a rebinding attack. */
export class ConnectionTrap {
  connections = 0;
  private readonly server = net.createServer((socket) => {
    this.connections += 1;
    socket.destroy();
  });

  async start(host: string, port: number): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, resolve);
    });
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
