/**
 * With the clock following real time (how the demo and the end-to-end tests of other issues run),
 * scheduled work happens by itself: the autopilot with zero delays and a one-second delivery tick
 * bring CUSTOMER_APPROVED to the receiver without anyone advancing the clock.
 */
import { describe, expect, it, vi } from 'vitest';
import { startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';
import { uniformAutopilotDelays } from '../../sandbox';

const IMMEDIATELY = uniformAutopilotDelays(0);

describe('real-time clock', () => {
  it('runs the autopilot and the delivery scheduler on its own', async () => {
    const { a } = await startSandbox({ clock: {}, autopilot: IMMEDIATELY, deliveryTickSeconds: 1 });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await vi.waitFor(() => expect(receiver.events()).toEqual(['CUSTOMER_APPROVED']), { timeout: 10_000, interval: 50 });
    expect(receiver.received[0]?.body.payload).toMatchObject({ id: customer.id, status: 'APPROVED' });
  });
});
