/**
 * The client's own per-request overhead: the same GET against a loopback server that answers a
 * fixed success envelope, once with plain undici and once through RampClient (signing, URL building,
 * response typing with zod). The difference per request is what the client adds.
 */
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { RampClient } from '../ramp';
import { percentile, type Figure } from './report';

const CUSTOMER = {
  id: '7d5c1c7e-3b8e-4a55-9d1f-8f2f5d7c6b1a',
  status: 'APPROVED',
  realName: 'Ada Lovelace',
  email: 'ada@example.com',
  externalId: 'user-42',
  kycLink: 'https://kyc.example.com/x',
};
const ANSWER = JSON.stringify({ status: 'SUCCESS', data: CUSTOMER });

function startServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', date: new Date().toUTCString() });
    response.end(ANSWER);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((ready) =>
    server.listen(0, '127.0.0.1', () =>
      ready({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }),
    ),
  );
}

async function timeEach(count: number, call: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < 500; i++) await call(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

export async function benchClientOverhead(count = 5000): Promise<Figure[]> {
  const { server, url } = await startServer();
  const agent = new Agent({ connections: 1 });
  const client = new RampClient({ baseUrl: url, apiKey: 'bench-key', apiSecret: 'bench-secret' });
  try {
    const raw = await timeEach(count, async () => {
      const response = await request(`${url}/customer/detail?id=${CUSTOMER.id}`, { dispatcher: agent });
      await response.body.json();
    });
    const signed = await timeEach(count, async () => {
      await client.customers.detail({ id: CUSTOMER.id });
    });
    const method = `${count} sequential GET /customer/detail on one keep-alive connection to a loopback node:http server, after 500 warm-up`;
    return [
      { name: 'plain undici request, p50', value: percentile(raw, 50) * 1000, unit: 'µs', method },
      { name: 'RampClient request, p50', value: percentile(signed, 50) * 1000, unit: 'µs', method },
      {
        name: 'client overhead per request, p50',
        value: (percentile(signed, 50) - percentile(raw, 50)) * 1000,
        unit: 'µs',
        method: 'RampClient p50 minus plain undici p50 (signing, URL, zod parse of the envelope)',
      },
      {
        name: 'client overhead per request, p99',
        value: (percentile(signed, 99) - percentile(raw, 99)) * 1000,
        unit: 'µs',
        method: 'the same at p99',
      },
    ];
  } finally {
    await client.close();
    await agent.close();
    server.close();
  }
}
