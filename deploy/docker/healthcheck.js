// Docker HEALTHCHECK of every image (Kubernetes ignores it and uses its own probes).
//   node /opt/pf/healthcheck.js <default port> [path]
// Asks http://127.0.0.1:$PORT<path> (default /healthz: the process is alive) and exits 0 on a 2xx
// answer within 2 s, 1 otherwise. Plain node: the slim image has no curl or wget.
'use strict';
const http = require('node:http');

const fromEnv = Number(process.env.PORT);
const port = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Number(process.argv[2]);
const path = process.argv[3] || '/healthz';

const req = http.get({ host: '127.0.0.1', port, path, timeout: 2000 }, (res) => {
  res.resume();
  process.exit(res.statusCode >= 200 && res.statusCode < 300 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
