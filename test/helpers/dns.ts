import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

/** A real DNS server on 127.0.0.1 answering from a mutable record table. */
export async function startDns() {
  const records = new Map<string, Array<{ type: 'A' | 'CNAME' | 'TXT'; value: string }>>();
  /** When set, each answer waits for this promise: a test holds answers to see which questions arrive meanwhile. */
  let hold: ((name: string) => Promise<void>) | null = null;
  const questions: string[] = [];
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: async (req, send) => {
      const response = Packet.createResponseFromRequest(req);
      const [question] = req.questions;
      const name = question.name.toLowerCase();
      questions.push(name);
      if (hold) await hold(name);
      const entries = records.get(name);
      if (!entries) {
        (response.header as { rcode: number }).rcode = 3; // NXDOMAIN
        return send(response);
      }
      for (const entry of entries) {
        const type = Packet.TYPE[entry.type];
        if (type !== question.type) continue;
        const base = { name: question.name, type, class: Packet.CLASS.IN, ttl: 60 };
        // dns2's typings want encoder objects; its server takes plain records.
        const answer = (record: object) => response.answers.push(record as (typeof response.answers)[number]);
        if (entry.type === 'A') answer({ ...base, address: entry.value });
        if (entry.type === 'CNAME') answer({ ...base, domain: entry.value });
        if (entry.type === 'TXT') answer({ ...base, data: entry.value });
      }
      send(response);
    },
  });
  const port = await new Promise<number>((resolve) => {
    server.on('listening', () => resolve((server.addresses() as { udp: AddressInfo }).udp.port));
    server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  });
  return {
    port,
    records,
    /** Every name asked, in order of arrival. */
    questions,
    holdAnswers(until: ((name: string) => Promise<void>) | null) {
      hold = until;
    },
    close: () => server.close(),
  };
}

export type TestDns = Awaited<ReturnType<typeof startDns>>;
