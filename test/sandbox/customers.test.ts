/** Customers through HTTP: create, detail by id and externalId, list, pagination, KYC link, transitions, events, scoping. */
import { describe, expect, it } from 'vitest';
import { CustomerSchema, pageOf, successEnvelope } from '../../ramp/schemas';
import { conforms } from './support/conformance';
import { startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

describe('customers', () => {
  it('creates a customer in CREATED with a kycLink, readable by id and by externalId', async () => {
    const { a } = await startSandbox();
    const created = await a.post('/customer/create', {
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
      externalId: 'user-42',
    });
    conforms(successEnvelope(CustomerSchema), created.json);
    const customer = created.json.data;
    expect(customer).toMatchObject({
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
      externalId: 'user-42',
      status: 'CREATED',
    });
    expect(customer.kycLink).toMatch(/\/kyc\/[0-9a-f-]{36}$/);
    expect(await a.ok('GET', `/customer/detail?id=${customer.id}`)).toEqual(customer);
    expect(await a.ok('GET', '/customer/detail?externalId=user-42')).toEqual(customer);
  });

  it('refuses a second customer with the same externalId, and invalid fields', async () => {
    const { a } = await startSandbox();
    await a.ok('POST', '/customer/create', { externalId: 'dup' });
    expect((await a.post('/customer/create', { externalId: 'dup' })).json).toEqual({
      status: 'FAILED',
      message: 'a customer with externalId dup already exists',
    });
    expect((await a.post('/customer/create', { email: 'not-an-email' })).json.status).toBe('INVALID_PARAMETERS');
    const notJson = await a.send({
      method: 'POST',
      target: '/customer/create',
      body: '{"oops',
      contentType: 'application/json',
    });
    expect(notJson.json).toEqual({ status: 'INVALID_PARAMETERS', message: 'the body is not valid JSON' });
    expect((await a.get('/customer/detail')).json.status).toBe('INVALID_PARAMETERS');
  });

  it('walks CREATED → PENDING (KYC link opened) → APPROVED, firing CUSTOMER_APPROVED', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED', 'CUSTOMER_REJECTED', 'CUSTOMER_DELETED']);
    const customer = await a.ok('POST', '/customer/create', { externalId: 'kyc' });
    const page = await fetch(customer.kycLink);
    expect(page.status).toBe(200);
    expect((await a.ok('GET', `/customer/detail?id=${customer.id}`)).status).toBe('PENDING');
    const approved = await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    expect(approved.status).toBe('APPROVED');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['CUSTOMER_APPROVED']);
    const again = await a.post('/sandbox/customer/approve', { id: customer.id });
    expect(again.json).toEqual({ status: 'FAILED', message: 'cannot approve a customer in status APPROVED' });
  });

  it('rejects and deletes, firing CUSTOMER_REJECTED and CUSTOMER_DELETED', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED', 'CUSTOMER_REJECTED', 'CUSTOMER_DELETED']);
    const customer = await a.ok('POST', '/customer/create', {});
    expect((await a.ok('POST', '/sandbox/customer/reject', { id: customer.id })).status).toBe('REJECTED');
    expect((await a.ok('POST', '/sandbox/customer/delete', { id: customer.id })).status).toBe('DELETED');
    expect((await a.post('/sandbox/customer/delete', { id: customer.id })).json.status).toBe('FAILED');
    expect((await a.ok('GET', `/customer/detail?id=${customer.id}`)).status).toBe('DELETED');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['CUSTOMER_REJECTED', 'CUSTOMER_DELETED']);
    expect(receiver.received.map((delivery) => delivery.body.payload.status)).toEqual(['REJECTED', 'DELETED']);
  });

  it('paginates lists, validating pageNum and pageSize', async () => {
    const { a } = await startSandbox();
    for (let i = 0; i < 5; i++) await a.ok('POST', '/customer/create', { externalId: `c${i}` });
    const page = await a.post('/customer/list', {});
    expect(page.status).toBe(404); // lists are GET only
    const second = await a.get('/customer/list?pageNum=2&pageSize=2');
    conforms(successEnvelope(pageOf(CustomerSchema)), second.json);
    expect(second.json.data.total).toBe(5);
    expect(second.json.data.list.map((c: { externalId: string }) => c.externalId)).toEqual(['c2', 'c1']);
    expect((await a.ok('GET', '/customer/list?pageNum=9&pageSize=100')).list).toEqual([]);
    for (const bad of ['pageNum=0', 'pageNum=-1', 'pageNum=1.5', 'pageSize=0', 'pageSize=101', 'pageSize=ten']) {
      const response = await a.get(`/customer/list?${bad}`);
      expect(response.status, bad).toBe(422);
      expect(response.json.status, bad).toBe('INVALID_PARAMETERS');
    }
  });

  it("answers another partner's customer exactly like a missing one", async () => {
    const { a, b } = await startSandbox();
    const customer = await a.ok('POST', '/customer/create', { externalId: 'mine' });
    const theirs = await b.get(`/customer/detail?id=${customer.id}`);
    const missing = await b.get('/customer/detail?id=00000000-0000-0000-0000-000000000000');
    expect(theirs.status).toBe(missing.status);
    expect(theirs.json).toEqual(missing.json);
    expect((await b.get('/customer/detail?externalId=mine')).json).toEqual(missing.json);
    expect((await b.ok('GET', '/customer/list')).total).toBe(0);
    expect((await b.post('/sandbox/customer/approve', { id: customer.id })).json).toEqual({
      status: 'FAILED',
      message: 'customer not found',
    });
  });
});
