/**
 * Starts a sandbox for a test: two partners, a frozen virtual clock at a whole minute (so nothing
 * moves unless the test advances it), and helpers to build the usual records through HTTP.
 */
import { afterEach } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../../sandbox';
import { SignedClient } from './signed-client';
import { WebhookReceiver } from './webhook-receiver';

export const START_TIME = new Date('2026-05-04T09:00:00.000Z');

export const PARTNER_A = { apiKey: 'partner-a-key', apiSecret: 'partner-a-secret' };
export const PARTNER_B = { apiKey: 'partner-b-key', apiSecret: 'partner-b-secret' };

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

export interface Harness {
  sandbox: Sandbox;
  a: SignedClient;
  b: SignedClient;
}

export async function startSandbox(options: Partial<SandboxOptions> = {}): Promise<Harness> {
  const sandbox = await createSandbox({
    partners: [PARTNER_A, PARTNER_B],
    clock: { startTime: START_TIME, frozen: true },
    audWhitelistDelaySeconds: 30,
    ...options,
  });
  cleanups.push(() => sandbox.close());
  return {
    sandbox,
    a: new SignedClient(sandbox.url, PARTNER_A.apiKey, PARTNER_A.apiSecret),
    b: new SignedClient(sandbox.url, PARTNER_B.apiKey, PARTNER_B.apiSecret),
  };
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const receiver = await new WebhookReceiver().start();
  cleanups.push(() => receiver.close());
  return receiver;
}

/** Registers the receiver and subscribes the partner to `events`. */
export async function subscribe(client: SignedClient, receiver: WebhookReceiver, events: string[]): Promise<void> {
  await client.ok('POST', '/callback-url', { callbackUrl: receiver.url });
  await client.ok('POST', '/subscribed-events', { events });
}

/** A customer approved through the simulation endpoint. */
export async function approvedCustomer(
  client: SignedClient,
  externalId = `user-${Math.random().toString(36).slice(2)}`,
): Promise<string> {
  const customer = await client.ok('POST', '/customer/create', {
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
    externalId,
  });
  await client.ok('POST', '/sandbox/customer/approve', { id: customer.id });
  return customer.id as string;
}

export const AUD_SENDER = { bsbNumber: '062-000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
