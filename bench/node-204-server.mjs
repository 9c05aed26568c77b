// Reference ceiling: a bare Node `http` server answering 204 to everything (no routing, parsing or forwarding), one
// process, measured in the same rounds: the most one Node process can answer on this core.
// WORK_US=<n>: the same server spinning n µs per request before it answers, standing in for a handler's own work:
// how far throughput falls for a given amount of work per request on this machine (bench/runtime.ts).
import http from 'node:http';

const workMs = Number(process.env.WORK_US ?? 0) / 1000;

const server = http
  .createServer((req, res) => {
    req.resume();
    if (workMs > 0) {
      const until = performance.now() + workMs;
      while (performance.now() < until);
    }
    res.writeHead(204).end();
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  process.exit(0);
});
