/**
 * The older generation's POST /create-va: HTTP 200 for every outcome with the outcome in `status`,
 * and the ETH / TRX wallet-ownership signature checked when a destination wallet is given.
 */
import { describe, expect, it } from 'vitest';
import { LegacyResponseSchema } from '../../ramp/schemas';
import { conforms } from './support/conformance';
import { approvedCustomer, startSandbox } from './support/sandbox-fixture';
import { SignedClient } from './support/signed-client';
import { ownershipMessage, TestWallet } from './support/wallet';

describe('POST /create-va (older generation)', () => {
  it.each(['ETH', 'TRX'] as const)(
    'creates a virtual account feeding a %s wallet proven by its signature',
    async (network) => {
      const { a } = await startSandbox();
      const userId = await approvedCustomer(a);
      const wallet = new TestWallet(network);
      const response = await a.post('/create-va', {
        user_id: userId,
        currency: 'AUD',
        to_address: wallet.address,
        to_network: network,
        signature: wallet.signPersonalMessage(ownershipMessage(wallet.address, userId)),
      });
      expect(response.status).toBe(200);
      conforms(LegacyResponseSchema, response.json);
      expect(response.json.status).toBe('SUCCESS');
      const { va_id: virtualAccountId, autoramp_flow_id: flowId } = response.json.data;
      expect((await a.ok('GET', `/virtual-account/detail?id=${virtualAccountId}`)).status).toBe('PENDING');
      const flow = await a.ok('GET', `/autoramp-flow/detail?id=${flowId}`);
      expect(flow).toMatchObject({ type: 'ONRAMP', from: virtualAccountId, status: 'ENABLED' });
      expect((await a.ok('GET', `/crypto-address/detail?id=${flow.to}`)).address).toBe(wallet.address);
    },
  );

  it('answers 200 with a failure status for a signature by another key, another user or another day', async () => {
    const { a } = await startSandbox();
    const userId = await approvedCustomer(a);
    const wallet = new TestWallet('ETH');
    const impostor = new TestWallet('ETH');
    const attempts = [
      impostor.signPersonalMessage(ownershipMessage(wallet.address, userId)),
      wallet.signPersonalMessage(ownershipMessage(wallet.address, 'someone-else')),
      wallet.signPersonalMessage(ownershipMessage(wallet.address, userId, new Date(Date.now() - 3 * 24 * 3600 * 1000))),
      '0xdeadbeef',
    ];
    for (const signature of attempts) {
      const response = await a.post('/create-va', {
        user_id: userId,
        currency: 'AUD',
        to_address: wallet.address,
        to_network: 'ETH',
        signature,
      });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ status: 'FAILED', message: 'the wallet ownership signature is invalid' });
    }
    expect((await a.ok('GET', '/virtual-account/list')).total).toBe(0);
  });

  it('requires the signature with to_address, and to_address with to_network', async () => {
    const { a } = await startSandbox();
    const userId = await approvedCustomer(a);
    const missing = await a.post('/create-va', {
      user_id: userId,
      currency: 'AUD',
      to_address: '0xabc',
      to_network: 'ETH',
    });
    expect(missing.status).toBe(200);
    expect(missing.json.status).toBe('INVALID_PARAMETERS');
    const half = await a.post('/create-va', { user_id: userId, currency: 'AUD', to_address: '0xabc' });
    expect(half.json).toEqual({ status: 'INVALID_PARAMETERS', message: 'to_address and to_network go together' });
  });

  it('creates a plain virtual account without a wallet, and answers authentication failures with 200 too', async () => {
    const { sandbox, a } = await startSandbox();
    const userId = await approvedCustomer(a);
    const plain = await a.post('/create-va', { user_id: userId, currency: 'GBP' });
    expect(plain.json.data).toMatchObject({
      user_id: userId,
      currency: 'GBP',
      va_status: 'PENDING',
      autoramp_flow_id: null,
    });
    const stranger = await new SignedClient(sandbox.url, 'nobody', 'x').post('/create-va', {
      user_id: userId,
      currency: 'GBP',
    });
    expect(stranger.status).toBe(200);
    expect(stranger.json).toEqual({ status: 'UNAUTHORISED', message: 'unknown API key' });
  });
});
