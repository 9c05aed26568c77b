// Reference floor for the built-in runtime: a bare Node `http` server that answers 204 to every hit and forwards its
// query to the vendor afterwards, pipelined over a few keep-alive connections (the hits queued while the event loop
// turns go out in one write per connection). No routing, parsing, cookies, metering, logs or retries beyond resending
// what a closed connection left unanswered: the least any runtime that acknowledges a hit and then forwards it does
// per hit, in one process on this core.
import http from 'node:http';
import net from 'node:net';

const vendor = new URL(process.env.UPSTREAM);
const CONNECTIONS = 4;
const END_OF_ANSWER = '\r\n\r\n'; // the vendor answers 204: a head and no body

function connection() {
  const state = { socket: null, inFlight: [], queued: [], carry: '' };
  const open = () => {
    state.socket = net.connect(Number(vendor.port), vendor.hostname);
    state.socket.setNoDelay(true);
    state.socket.setEncoding('latin1');
    state.socket.on('data', (chunk) => {
      const text = state.carry + chunk;
      let at = text.indexOf(END_OF_ANSWER);
      let consumed = 0;
      while (at !== -1) {
        state.inFlight.shift();
        consumed = at + END_OF_ANSWER.length;
        at = text.indexOf(END_OF_ANSWER, consumed);
      }
      state.carry = text.slice(Math.max(consumed, text.length - 3));
    });
    state.socket.on('error', () => {});
    state.socket.on('close', () => {
      state.queued.unshift(...state.inFlight);
      state.inFlight = [];
      state.carry = '';
      open();
      if (state.queued.length > 0) setImmediate(flush);
    });
  };
  open();
  return state;
}

const connections = Array.from({ length: CONNECTIONS }, connection);
let turn = 0;
let flushScheduled = false;

function flush() {
  flushScheduled = false;
  for (const state of connections) {
    if (state.queued.length === 0) continue;
    state.socket.write(state.queued.join(''));
    state.inFlight.push(...state.queued);
    state.queued = [];
  }
}

const server = http
  .createServer((req, res) => {
    req.resume();
    res.writeHead(204).end();
    const at = req.url.indexOf('?');
    const query = at === -1 ? '' : req.url.slice(at);
    connections[turn].queued.push(`GET /g/collect${query} HTTP/1.1\r\nHost: ${vendor.host}\r\n\r\n`);
    turn = (turn + 1) % CONNECTIONS;
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  process.exit(0);
});
