import dns2 from 'dns2';

const { Packet } = dns2;

export interface TestDnsRecords {
  /** TXT values by name, each value one record. */
  txt?: Map<string, string[]>;
  /** IPv4 addresses by host name. */
  a?: Map<string, string[]>;
  /** Names the server never answers (a resolver waits until its time limit). */
  silent?: (name: string) => boolean;
}

/**
 * Test support: a real DNS server (dns2, UDP on loopback) answering the records given; others get an empty answer.
 * `queries` lists every question's name as it arrived.
 * @example const dns = await startTestDnsServer({ txt: new Map([['_payable-service-index.a.test', [token]]]) }); createDnsResolver({ servers: [dns.address] });
 */
export async function startTestDnsServer(records: TestDnsRecords) {
  const queries: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (!question) return send(response);
      queries.push(question.name);
      if (records.silent?.(question.name)) return;
      if (question.type === Packet.TYPE.TXT) {
        for (const value of records.txt?.get(question.name) ?? []) {
          response.answers.push(toResource({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data: value }));
        }
      }
      if (question.type === Packet.TYPE.A) {
        for (const address of records.a?.get(question.name) ?? []) {
          response.answers.push(toResource({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address }));
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = addresses.udp as { port: number };
  return { address: `127.0.0.1:${port}`, queries, close: () => server.close() };
}

/** dns2 encodes a plain record object; its types ask for a Resource instance. */
function toResource(record: Record<string, unknown>): InstanceType<typeof Packet.Resource> {
  return record as unknown as InstanceType<typeof Packet.Resource>;
}
