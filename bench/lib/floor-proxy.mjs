// The floor of any REST edge on this machine: the least a proxy in front of the gateway can do
// per request, run in its own process by the edge benchmark. One rate-limit script on Redis (a
// fixed-window counter, as the edge's), then the same GraphQL call to the gateway over a
// keep-alive undici pool, and the gateway's answer passed on. No express, no validation, no
// authentication, no error handling worth the name: not something to deploy, a measure of what
// the hops themselves cost (GET /readyz answers 200 once Redis is connected).
//
// Env: PORT, GATEWAY_URL, REDIS_URL, REDIS_KEY, GRAPHQL_BODY (the request body), BEARER (a
// channel JWT).
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createClient } = require('redis');
const { Agent, request } = require('undici');

const { GATEWAY_URL, REDIS_URL, REDIS_KEY, GRAPHQL_BODY, BEARER } = process.env;
const COUNT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`;

const redis = createClient({ url: REDIS_URL });
await redis.connect();
const sha = await redis.scriptLoad(COUNT);
const pool = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${BEARER}` };

const server = http.createServer(async (req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200).end('ok');
    return;
  }
  try {
    await redis.evalSha(sha, { keys: [REDIS_KEY], arguments: ['60000'] });
    const upstream = await request(GATEWAY_URL, { method: 'POST', headers, body: GRAPHQL_BODY, dispatcher: pool });
    const body = await upstream.body.text();
    res.writeHead(upstream.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } catch (err) {
    res.writeHead(502).end(String(err));
  }
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
const stop = () =>
  server.close(async () => {
    await redis.quit().catch(() => undefined);
    await pool.close();
    process.exit(0);
  });
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
