// Reference floor: the smallest undici reverse proxy (no routing, metering, logs or checks), measured in the
// same rounds, to show how much of the gateway's cost is Node's own HTTP (and TLS) stack. With TLS_PORT, the same
// handler also listens with https (TLS_CERT, TLS_KEY).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Agent } from 'undici';

const agent = new Agent({ keepAliveTimeout: 4_000 });
const upstream = process.env.UPSTREAM;
const SKIPPED = new Set(['host', 'connection']);

const handler = (req, res) => {
  const headers = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (!SKIPPED.has(req.rawHeaders[i].toLowerCase())) headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  agent.dispatch(
    { origin: upstream, path: req.url, method: req.method, headers },
    {
      onRequestStart() {},
      onResponseStart(_controller, status, responseHeaders) {
        res.writeHead(status, responseHeaders);
      },
      onResponseData(_controller, chunk) {
        res.write(chunk);
      },
      onResponseEnd() {
        res.end();
      },
      onResponseError() {
        res.destroy();
      },
    },
  );
};
const servers = [http.createServer(handler).listen(Number(process.env.PORT), '127.0.0.1')];
if (process.env.TLS_PORT) {
  const tls = { cert: fs.readFileSync(process.env.TLS_CERT), key: fs.readFileSync(process.env.TLS_KEY) };
  servers.push(https.createServer(tls, handler).listen(Number(process.env.TLS_PORT), '127.0.0.1'));
}
process.on('SIGTERM', () => {
  for (const server of servers) server.closeAllConnections();
  process.exit(0);
});
