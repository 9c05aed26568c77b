// Reference ceiling: a bare Node `http` server answering 204 to everything (no routing, parsing or forwarding), one
// process, measured in the same rounds: the most one Node process can answer on this core.
import http from 'node:http';

const server = http
  .createServer((req, res) => {
    req.resume();
    res.writeHead(204).end();
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  process.exit(0);
});
