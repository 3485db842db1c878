/** Injected faults (5xx, connection reset, delay, after handling) and the virtual clock endpoints. */
import { describe, expect, it } from 'vitest';
import { START_TIME, startSandbox } from './support/sandbox-fixture';

describe('POST /sandbox/faults', () => {
  it('fails the next N responses of a path with a 5xx, then answers normally', async () => {
    const { a, b } = await startSandbox();
    const rules = await a.ok('POST', '/sandbox/faults', { path: '/balance', kind: 'HTTP_5XX', count: 2 });
    expect(rules).toEqual([
      { path: '/balance', kind: 'HTTP_5XX', remaining: 2, statusCode: 503, delayMs: 35_000, afterHandling: false },
    ]);
    // Another partner is not affected.
    expect((await b.get('/balance')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const failed = await a.get('/balance');
      expect(failed.status).toBe(503);
      expect(failed.text).toBe('Service Unavailable');
    }
    expect((await a.get('/balance')).status).toBe(200);
    expect(await a.ok('GET', '/sandbox/faults')).toEqual([]);
  });

  it('lists the faults still to be served', async () => {
    const { a, b } = await startSandbox();
    await a.ok('POST', '/sandbox/faults', { path: '/balance', kind: 'RESET', count: 3, afterHandling: true });
    expect(await a.ok('GET', '/sandbox/faults')).toEqual([
      { path: '/balance', kind: 'RESET', remaining: 3, statusCode: 503, delayMs: 35_000, afterHandling: true },
    ]);
    expect(await b.ok('GET', '/sandbox/faults')).toEqual([]);
  });

  it('resets the connection without an answer', async () => {
    const { a } = await startSandbox();
    await a.ok('POST', '/sandbox/faults', { path: '/customer/list', kind: 'RESET' });
    await expect(a.get('/customer/list')).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect((await a.get('/customer/list')).status).toBe(200);
  });

  it('after handling, the operation takes effect but its answer is lost', async () => {
    const { a } = await startSandbox();
    await a.ok('POST', '/sandbox/faults', {
      path: '/customer/create',
      kind: 'HTTP_5XX',
      statusCode: 502,
      afterHandling: true,
    });
    const lost = await a.post('/customer/create', { externalId: 'was-it-created' });
    expect(lost.status).toBe(502);
    expect((await a.ok('GET', '/customer/detail?externalId=was-it-created')).externalId).toBe('was-it-created');
    await a.ok('POST', '/sandbox/faults', { path: '/customer/create', kind: 'RESET', afterHandling: true });
    await expect(a.post('/customer/create', { externalId: 'reset-after' })).rejects.toThrow(
      /ECONNRESET|socket hang up/,
    );
    expect((await a.ok('GET', '/customer/detail?externalId=reset-after')).status).toBe('CREATED');
  });

  it('delays a response and then answers normally', async () => {
    const { a } = await startSandbox();
    await a.ok('POST', '/sandbox/faults', { path: '/balance', kind: 'DELAY', delayMs: 50 });
    const delayed = await a.get('/balance');
    expect(delayed.json.status).toBe('SUCCESS');
  });

  it("refuses one customer's calls only, before every-path faults, until its rules are cleared", async () => {
    const { a } = await startSandbox();
    const refuse = { path: '/customer/create', kind: 'REFUSED', count: 100, externalId: 'refused-one' };
    await a.ok('POST', '/sandbox/faults', refuse);
    await a.ok('POST', '/sandbox/faults', { ...refuse, externalId: 'refused-two' });
    // Another customer's create meets no fault of the path's own: it goes on to the every-path ones.
    await a.ok('POST', '/sandbox/faults', { path: '*', kind: 'HTTP_5XX', count: 1 });
    expect((await a.post('/customer/create', { externalId: 'served' })).status).toBe(503);
    expect((await a.ok('POST', '/customer/create', { externalId: 'served' })).externalId).toBe('served');
    const refused = await a.post('/customer/create', { externalId: 'refused-one' });
    expect([refused.status, refused.json.status]).toEqual([422, 'FAILED']);
    // Cleared for one customer, the other's refusal stays.
    await a.ok('POST', '/sandbox/faults', { ...refuse, count: 0 });
    expect((await a.ok('POST', '/customer/create', { externalId: 'refused-one' })).externalId).toBe('refused-one');
    expect((await a.post('/customer/create', { externalId: 'refused-two' })).json.status).toBe('FAILED');
    expect(await a.ok('GET', '/sandbox/faults')).toEqual([
      expect.objectContaining({ path: '/customer/create', externalId: 'refused-two', remaining: 99 }),
    ]);
  });

  it("refuses the calls naming one customer's service id (body, the body's from, query), until cleared", async () => {
    const { a } = await startSandbox();
    const refusedId = (await a.ok('POST', '/customer/create', { externalId: 'refused-later' })).id as string;
    const servedId = (await a.ok('POST', '/customer/create', { externalId: 'served-later' })).id as string;
    const injected = (answer: { status: number; json: { status?: string; message?: string } }) =>
      answer.status === 422 && answer.json.status === 'FAILED' && /injected fault/.test(answer.json.message ?? '');
    for (const path of ['/autoramp-flow/onramp', '/crypto-address/add', '/crypto-address/list'])
      await a.ok('POST', '/sandbox/faults', { path, kind: 'REFUSED', count: 100, customerId: refusedId });
    const onramp = (customerId: string) =>
      a.post('/autoramp-flow/onramp', { from: { customerId, currency: 'USD' }, to: 'crypto-address-none' });
    const address = (customerId: string) =>
      a.post('/crypto-address/add', { customerId, currency: 'USDT', network: 'ETHEREUM', address: '0x00' });
    expect(injected(await onramp(refusedId))).toBe(true);
    expect(injected(await address(refusedId))).toBe(true);
    expect(injected(await a.get(`/crypto-address/list?customerId=${refusedId}`))).toBe(true);
    // The other customer's calls meet no fault (whatever the service makes of them).
    expect(injected(await onramp(servedId))).toBe(false);
    expect(injected(await address(servedId))).toBe(false);
    expect(injected(await a.get(`/crypto-address/list?customerId=${servedId}`))).toBe(false);
    // Cleared for that customer on one path, the path's rule is gone; the others stay.
    await a.ok('POST', '/sandbox/faults', {
      path: '/autoramp-flow/onramp',
      kind: 'REFUSED',
      count: 0,
      customerId: refusedId,
    });
    expect(injected(await onramp(refusedId))).toBe(false);
    expect((await a.ok('GET', '/sandbox/faults')).map((rule: { path: string }) => rule.path).sort()).toEqual([
      '/crypto-address/add',
      '/crypto-address/list',
    ]);
  });

  it('clears a path with count 0, and validates the rule', async () => {
    const { a } = await startSandbox();
    await a.ok('POST', '/sandbox/faults', { path: '/balance', kind: 'HTTP_5XX', count: 5 });
    expect(await a.ok('POST', '/sandbox/faults', { path: '/balance', kind: 'HTTP_5XX', count: 0 })).toEqual([]);
    expect((await a.get('/balance')).status).toBe(200);
    expect((await a.post('/sandbox/faults', { path: 'balance', kind: 'HTTP_5XX' })).json.status).toBe(
      'INVALID_PARAMETERS',
    );
    expect((await a.post('/sandbox/faults', { path: '/balance', kind: 'HTTP_5XX', statusCode: 404 })).json.status).toBe(
      'INVALID_PARAMETERS',
    );
  });
});

describe('the virtual clock', () => {
  it('tells the time and what is scheduled, and advances', async () => {
    const { sandbox, a } = await startSandbox({ audWhitelistDelaySeconds: 90 });
    expect(await a.ok('GET', '/sandbox/clock')).toEqual({ now: START_TIME.toISOString(), frozen: true, pending: [] });
    const customerId = (await a.ok('POST', '/customer/create', {})).id;
    await a.ok('POST', '/sandbox/customer/approve', { id: customerId });
    const account = await a.ok('POST', '/virtual-account/create', {
      customerId,
      currency: 'AUD',
      whitelist: { bsbNumber: '1', accountNumber: '2' },
    });
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: account.id });
    const clock = await a.ok('GET', '/sandbox/clock');
    expect(clock.pending).toEqual([{ label: 'AUD whitelist registration', dueAt: '2026-05-04T09:01:30.000Z' }]);
    const advanced = await a.ok('POST', '/sandbox/clock/advance', { seconds: 3600 });
    expect(advanced).toEqual({ now: '2026-05-04T10:00:00.000Z', frozen: true, pending: [] });
    expect(sandbox.clock.now().toISOString()).toBe('2026-05-04T10:00:00.000Z');
    // Records made later carry the virtual time.
    expect((await a.ok('POST', '/customer/create', {})).createTime).toBe('2026-05-04T10:00:00.000Z');
    expect((await a.post('/sandbox/clock/advance', { seconds: -1 })).json.status).toBe('INVALID_PARAMETERS');
    expect((await a.post('/sandbox/clock/advance', {})).json.status).toBe('INVALID_PARAMETERS');
  });

  it('follows real time unless frozen, and advancing adds to it', async () => {
    const before = Date.now();
    const { sandbox, a } = await startSandbox({ clock: {} });
    expect(sandbox.clock.now().getTime()).toBeGreaterThanOrEqual(before);
    expect((await a.ok('GET', '/sandbox/clock')).frozen).toBe(false);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 86_400 });
    expect(sandbox.clock.now().getTime()).toBeGreaterThanOrEqual(before + 86_400_000);
  });
});

describe('POST /sandbox/rate-limit', () => {
  it('answers 429 with Retry-After above N calls in a second, for that partner only, not counting its tools', async () => {
    const { a, b } = await startSandbox();
    expect(await a.ok('POST', '/sandbox/rate-limit', { callsPerSecond: 3, retryAfterSeconds: 2 })).toEqual({
      rateLimit: { callsPerSecond: 3, retryAfterSeconds: 2 },
    });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await a.get('/balance'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3]?.headers['retry-after']).toBe('2');
    // The tools and the other partner are not limited.
    expect(await a.ok('GET', '/sandbox/faults')).toEqual([]);
    expect((await b.get('/balance')).status).toBe(200);
    await new Promise((wake) => setTimeout(wake, 1_050));
    expect((await a.get('/balance')).status).toBe(200);
    await a.ok('POST', '/sandbox/rate-limit', { callsPerSecond: 0 });
    for (let i = 0; i < 5; i++) expect((await a.get('/balance')).status).toBe(200);
  });
});
