import dns2 from "dns2";

const { Packet } = dns2;

/** An answer record of class IN, cached for a second at most. */
const record = (fields: { name: string; type: number; data?: string; address?: string }) =>
  new Packet.Resource({ class: Packet.CLASS.IN, ttl: 1, ...fields });

/**
 * A real DNS server on loopback (UDP) answering from records the test sets: TXT values and A
 * addresses per name. Unknown names get an empty answer. Point the server's SITE_DNS_SERVERS at
 * `address`.
 */
export class TestDnsServer {
  private readonly txt = new Map<string, string[]>();
  private readonly a = new Map<string, string>();
  private readonly server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      for (const question of request.questions) {
        const name = question.name.toLowerCase();
        if (question.type === Packet.TYPE.TXT) {
          for (const data of this.txt.get(name) ?? []) {
            response.answers.push(record({ name: question.name, type: Packet.TYPE.TXT, data }));
          }
        } else if (question.type === Packet.TYPE.A) {
          const address = this.a.get(name);
          if (address) {
            response.answers.push(record({ name: question.name, type: Packet.TYPE.A, address }));
          }
        }
      }
      send(response);
    },
  });
  /** `127.0.0.1:<port>` once started */
  address = "";

  async start(): Promise<this> {
    const addresses = await this.server.listen({ udp: { port: 0, address: "127.0.0.1" } });
    this.address = `127.0.0.1:${addresses.udp?.port}`;
    return this;
  }

  setTxt(name: string, values: string[]) {
    this.txt.set(name.toLowerCase(), values);
  }

  setA(name: string, address: string) {
    this.a.set(name.toLowerCase(), address);
  }

  clear() {
    this.txt.clear();
    this.a.clear();
  }

  async close() {
    await this.server.close();
  }
}
