/** Pagination: one page per list(), every page through iterate(), checked before anything is sent. */
import { afterEach, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp/client';
import { RampInvalidParametersError } from '../../ramp/errors';
import * as records from './support/records';
import { startSignedServer, success, type ReceivedRequest, type SignedServer } from './support/signed-server';

const SECRET = 'pagination-secret';
const resources: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(resources.splice(0).map((resource) => resource.close()));
});

function customerNumbered(n: number) {
  return { ...records.customer, id: `c-${n}`, externalId: `ext-${n}` };
}

function queryOf(request: ReceivedRequest): URLSearchParams {
  return new URLSearchParams(request.query);
}

async function setUp(
  pages: (pageNum: number, pageSize: number) => unknown,
): Promise<{ server: SignedServer; client: RampClient }> {
  const server = await startSignedServer(SECRET, (request) => {
    const query = queryOf(request);
    return success(pages(Number(query.get('pageNum')), Number(query.get('pageSize'))));
  });
  const client = new RampClient({ baseUrl: server.url, apiKey: 'k', apiSecret: SECRET });
  resources.push(client, server);
  return { server, client };
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

describe('iterate', () => {
  it('walks pages of 100 by default and stops at total', async () => {
    const all = Array.from({ length: 250 }, (_, index) => customerNumbered(index));
    const { server, client } = await setUp((pageNum, pageSize) =>
      records.page(all.slice((pageNum - 1) * pageSize, pageNum * pageSize), all.length, pageNum, pageSize),
    );
    const items = await collect(client.customers.iterate());
    expect(items.map((item) => item.id)).toEqual(all.map((item) => item.id));
    expect(server.requests.map((request) => request.query)).toEqual([
      'pageNum=1&pageSize=100',
      'pageNum=2&pageSize=100',
      'pageNum=3&pageSize=100',
    ]);
  });

  it('stops exactly when the pages cover total, without asking for an empty page', async () => {
    const all = Array.from({ length: 20 }, (_, index) => customerNumbered(index));
    const { server, client } = await setUp((pageNum, pageSize) =>
      records.page(all.slice((pageNum - 1) * pageSize, pageNum * pageSize), all.length, pageNum, pageSize),
    );
    expect(await collect(client.customers.iterate({ pageSize: 10 }))).toHaveLength(20);
    expect(server.requests).toHaveLength(2);
  });

  it('skips ids already seen when records shift between pages', async () => {
    // A new record arrives after page 1 was read, pushing c-2 from page 1 onto page 2.
    const { client } = await setUp((pageNum) =>
      pageNum === 1
        ? records.page([customerNumbered(1), customerNumbered(2)], 4, 1, 2)
        : records.page([customerNumbered(2), customerNumbered(3)], 4, 2, 2),
    );
    const items = await collect(client.customers.iterate({ pageSize: 2 }));
    expect(items.map((item) => item.id)).toEqual(['c-1', 'c-2', 'c-3']);
  });

  it('stops on an empty page even if total promised more', async () => {
    const { server, client } = await setUp((pageNum) =>
      pageNum === 1 ? records.page([customerNumbered(1)], 50, 1, 1) : records.page([], 50, pageNum, 1),
    );
    expect(await collect(client.customers.iterate({ pageSize: 1 }))).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('starts from the page given and passes filters on every page', async () => {
    const { server, client } = await setUp((pageNum) =>
      records.page(pageNum === 3 ? [records.depositListItem] : [], 5, pageNum, 2),
    );
    await collect(client.deposits.iterate({ pageNum: 3, pageSize: 2, status: 'CONFIRMED', customerId: 'c-1' }));
    expect(server.requests.map((request) => request.query)).toEqual([
      'pageNum=3&pageSize=2&customerId=c-1&status=CONFIRMED',
    ]);
  });

  it.each([
    ['pageSize 0', { pageSize: 0 }],
    ['pageSize 101', { pageSize: 101 }],
    ['pageNum 0', { pageNum: 0 }],
    ['a fractional pageSize', { pageSize: 2.5 }],
  ])('refuses %s before sending anything', async (_label, params) => {
    const { server, client } = await setUp(() => records.page([]));
    expect(() => client.customers.iterate(params)).toThrow(RampInvalidParametersError);
    await expect(client.customers.list(params)).rejects.toThrow(
      /GET \/customer\/list: invalid request, not sent: page(Size|Num)/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('list', () => {
  it('returns one page as the service sent it', async () => {
    const { server, client } = await setUp(() => records.page([customerNumbered(1)], 30, 1, 1));
    expect(await client.customers.list({ pageNum: 1, pageSize: 1 })).toEqual(
      records.page([customerNumbered(1)], 30, 1, 1),
    );
    expect(server.requests).toHaveLength(1);
  });

  it('accepts the limits 1 and 100', async () => {
    const { server, client } = await setUp(() => records.page([]));
    await client.customers.list({ pageNum: 1, pageSize: 1 });
    await client.customers.list({ pageNum: 1, pageSize: 100 });
    expect(server.requests).toHaveLength(2);
  });
});
