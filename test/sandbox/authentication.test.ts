/**
 * Authentication through HTTP: a client signing independently is accepted, and every rejection of
 * the documented order is observed (IP whitelist, headers, milliseconds, skew, key, canonical
 * string, nonce), with the 401 switch and the debug canonical string.
 */
import { describe, expect, it } from 'vitest';
import { independentCanonical, independentSignature, SignedClient } from './support/signed-client';
import { PARTNER_A, startSandbox } from './support/sandbox-fixture';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe('sandbox authentication', () => {
  it('accepts a request signed by an independent implementation', async () => {
    const { a } = await startSandbox();
    const response = await a.get('/customer/list?pageNum=1&pageSize=10');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ status: 'SUCCESS', data: { list: [], total: 0, pageNum: 1, pageSize: 10 } });
  });

  it('accepts JSON bodies hashed byte for byte, including non-ASCII text', async () => {
    const { a } = await startSandbox();
    const response = await a.post('/customer/create', { realName: 'Zoë Ångström', externalId: 'zoe' });
    expect(response.json.status).toBe('SUCCESS');
    expect(response.json.data.realName).toBe('Zoë Ångström');
  });

  it('rejects each missing header, naming it', async () => {
    const { a } = await startSandbox();
    for (const header of ['x-api-key', 'x-timestamp', 'x-nonce', 'x-signature']) {
      const response = await a.send({ method: 'GET', target: '/balance', headers: { [header]: undefined } });
      expect(response.status).toBe(422);
      expect(response.json.status).toBe('UNAUTHORISED');
      expect(response.json.message).toContain('missing header');
    }
  });

  it('rejects a 13-digit timestamp with a hint that it looks like milliseconds', async () => {
    const { a } = await startSandbox();
    const response = await a.send({ method: 'GET', target: '/balance', timestamp: String(Date.now()) });
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ status: 'UNAUTHORISED' });
    expect(response.json.message).toMatch(/milliseconds/);
  });

  it('rejects a timestamp that is not whole seconds, and an uppercase signature', async () => {
    const { a } = await startSandbox();
    expect((await a.send({ method: 'GET', target: '/balance', timestamp: '1767225600.5' })).json.message).toMatch(
      /whole seconds/,
    );
    const upper = await a.send({ method: 'GET', target: '/balance', signature: 'A'.repeat(64) });
    expect(upper.json.message).toMatch(/lowercase hex/);
  });

  it('rejects timestamps outside the accepted skew either way and accepts the edge', async () => {
    const { a } = await startSandbox({ acceptedSkewSeconds: 60 });
    const past = await a.send({ method: 'GET', target: '/balance', timestamp: String(nowSeconds() - 120) });
    expect(past.json.status).toBe('UNAUTHORISED');
    expect(past.json.message).toMatch(/at most 60 s/);
    const future = await a.send({ method: 'GET', target: '/balance', timestamp: String(nowSeconds() + 120) });
    expect(future.json.status).toBe('UNAUTHORISED');
    const inside = await a.send({ method: 'GET', target: '/balance', timestamp: String(nowSeconds() - 30) });
    expect(inside.json.status).toBe('SUCCESS');
  });

  it('rejects an unknown API key', async () => {
    const { sandbox } = await startSandbox();
    const stranger = new SignedClient(sandbox.url, 'nobody', 'whatever');
    const response = await stranger.get('/balance');
    expect(response.json).toEqual({ status: 'UNAUTHORISED', message: 'unknown API key' });
  });

  it('rejects a wrong secret, a changed query order, a changed body, a changed host and a trailing line feed', async () => {
    const { sandbox, a } = await startSandbox();
    const wrongSecret = new SignedClient(sandbox.url, PARTNER_A.apiKey, 'not-the-secret');
    expect((await wrongSecret.get('/balance')).json.message).toBe('signature does not match');
    const reordered = await a.send({
      method: 'GET',
      target: '/customer/list?pageSize=10&pageNum=1',
      signedTarget: '/customer/list?pageNum=1&pageSize=10',
    });
    expect(reordered.json.message).toBe('signature does not match');
    const body = JSON.stringify({ realName: 'A' });
    const reserialised = await a.send({
      method: 'POST',
      target: '/customer/create',
      contentType: 'application/json',
      body,
      signedBody: JSON.stringify({ realName: 'A' }, null, 1),
    });
    expect(reserialised.json.message).toBe('signature does not match');
    const portless = await a.send({ method: 'GET', target: '/balance', signedHost: '127.0.0.1' });
    expect(portless.json.message).toBe('signature does not match');
    const timestamp = String(nowSeconds());
    const nonce = 'trailing-lf';
    const canonical = `${independentCanonical({ method: 'GET', host: a.authority, target: '/balance', bodyHash: '', timestamp, nonce })}\n`;
    const trailing = await a.send({
      method: 'GET',
      target: '/balance',
      timestamp,
      nonce,
      signature: independentSignature(PARTNER_A.apiSecret, canonical),
    });
    expect(trailing.json.message).toBe('signature does not match');
  });

  it('with --debug, a failed signature answer carries the canonical string the server built', async () => {
    const { sandbox } = await startSandbox({ debug: true });
    const wrongSecret = new SignedClient(sandbox.url, PARTNER_A.apiKey, 'not-the-secret');
    const timestamp = String(nowSeconds());
    const live = await wrongSecret.send({ method: 'GET', target: '/customer/list?b=2&a=1', timestamp, nonce: 'n-1' });
    expect(live.json.canonicalString).toBe(
      `GET\n${wrongSecret.authority}\n/customer/list\nb=2&a=1\n\n${timestamp}\nn-1`,
    );
  });

  it('without --debug, the canonical string is never disclosed', async () => {
    const { sandbox } = await startSandbox();
    const response = await new SignedClient(sandbox.url, PARTNER_A.apiKey, 'wrong').get('/balance');
    expect(response.json).toEqual({ status: 'UNAUTHORISED', message: 'signature does not match' });
  });

  it('rejects a reused nonce, and a forged request cannot burn a nonce', async () => {
    const { sandbox, a } = await startSandbox();
    const forger = new SignedClient(sandbox.url, PARTNER_A.apiKey, 'guessed-secret');
    const forged = await forger.send({ method: 'GET', target: '/balance', nonce: 'nonce-1' });
    expect(forged.json.message).toBe('signature does not match');
    const genuine = await a.send({ method: 'GET', target: '/balance', nonce: 'nonce-1' });
    expect(genuine.json.status).toBe('SUCCESS');
    const replay = await a.send({ method: 'GET', target: '/balance', nonce: 'nonce-1' });
    expect(replay.json).toEqual({ status: 'UNAUTHORISED', message: 'X-Nonce has already been used' });
  });

  it("applies the partner's IP whitelist first, and an empty list lifts it", async () => {
    const { a, b } = await startSandbox();
    await a.ok('POST', '/ip-white-list', { ipWhiteList: ['203.0.113.7'] });
    expect(await a.ok('GET', '/ip-white-list').catch((error: Error) => error.message)).toMatch(
      /not in the partner's IP whitelist/,
    );
    // Even a badly signed request from a listed partner is turned away by the whitelist first.
    const unsigned = await a.send({ method: 'GET', target: '/balance', headers: { 'x-signature': undefined } });
    expect(unsigned.json.message).toMatch(/IP whitelist/);
    // Other partners are not affected.
    expect((await b.get('/balance')).json.status).toBe('SUCCESS');
    await b.ok('POST', '/ip-white-list', { ipWhiteList: ['127.0.0.1'] });
    expect(await b.ok('GET', '/ip-white-list')).toEqual({ ipWhiteList: ['127.0.0.1'] });
    await b.ok('POST', '/ip-white-list', { ipWhiteList: [] });
    expect(await b.ok('GET', '/ip-white-list')).toEqual({ ipWhiteList: [] });
  });

  it('rejects an invalid IP in the whitelist', async () => {
    const { a } = await startSandbox();
    const response = await a.post('/ip-white-list', { ipWhiteList: ['not-an-ip'] });
    expect(response.json.status).toBe('INVALID_PARAMETERS');
  });

  it('signs multipart bodies with an empty hash line', async () => {
    const { a } = await startSandbox();
    const boundary = 'sandbox-test-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="id"\r\n\r\nno-such-deposit\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="id.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--${boundary}--\r\n`;
    const response = await a.send({
      method: 'POST',
      target: '/deposit/submitAttachmentFile',
      body,
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
    // Authenticated (the empty hash line matched); the deposit is simply unknown.
    expect(response.json).toEqual({ status: 'FAILED', message: 'deposit not found' });
  });

  it('authenticates unknown paths too before answering 404', async () => {
    const { sandbox, a } = await startSandbox();
    expect((await a.get('/no/such/endpoint')).status).toBe(404);
    const unsigned = await new SignedClient(sandbox.url, 'nobody', 'x').get('/no/such/endpoint');
    expect(unsigned.json.status).toBe('UNAUTHORISED');
  });

  it('with the gateway switch, failures answer 401 with a plain-text body', async () => {
    const { sandbox } = await startSandbox({ gateway401: true });
    const response = await new SignedClient(sandbox.url, 'nobody', 'x').get('/balance');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toMatch(/401 Unauthorized: unknown API key/);
  });

  it('lets several key pairs of one partner share its records', async () => {
    const { sandbox } = await startSandbox({
      partners: [
        { apiKey: 'old-key', apiSecret: 'old-secret', partnerId: 'acme' },
        { apiKey: 'new-key', apiSecret: 'new-secret', partnerId: 'acme' },
      ],
    });
    const oldKey = new SignedClient(sandbox.url, 'old-key', 'old-secret');
    const newKey = new SignedClient(sandbox.url, 'new-key', 'new-secret');
    const created = await oldKey.ok('POST', '/customer/create', { externalId: 'shared' });
    expect((await newKey.ok('GET', `/customer/detail?id=${created.id}`)).externalId).toBe('shared');
  });
});
