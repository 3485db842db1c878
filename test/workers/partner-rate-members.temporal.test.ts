/**
 * Who shares the partner's rate (workers/partner-rate.ts), on the test run's dev server: every worker
 * polling the service queue, on whichever of its partitions the poll waits, and no worker that has
 * gone. The pollers here are raw polls under chosen identities (each a worker, as the server sees it),
 * and each PartnerRate's shares are read from what it hands its pacer; the windows are shortened
 * (goneAfterMs, claimWithinMs) so the case takes a minute and a half rather than four.
 *
 * Found by the chaos run at 300 customers: a worker killed still took its share for the server's five
 * minutes of poller memory, and the root partition alone listed 5 of 8 live pollers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { CallPacer } from '../../ramp/call-pacing';
import { PartnerRate, type Membership } from '../../workers/partner-rate';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';

/** The case's RAMP_MAX_CALLS_PER_SECOND: 2 a worker at 8 workers, 8 at 2. */
const N = 16;
/** Shortened windows; the server's long polls here end every 11 s, so a live poller is heard at least that often. */
const MEMBERSHIP: Membership = { goneAfterMs: 30_000, claimWithinMs: 15_000 };
/** A raw poll's deadline: the server answers empty a second before it (and warns below 10 s). */
const POLL_MS = 12_000;

let connection: { client: Client; close: () => Promise<void> };
const stops: Array<() => void> = [];

beforeAll(async () => {
  connection = await connectClient();
});
afterAll(async () => {
  for (const stop of stops) stop();
  await connection?.close();
});

/** Polls `taskQueue` as `identity`, one long poll after another, until the returned function is called. */
function pollAs(taskQueue: string, identity: string): () => void {
  const { client } = connection;
  const stopped = new AbortController();
  void (async () => {
    while (!stopped.signal.aborted) {
      try {
        await client.connection.withAbortSignal(stopped.signal, () =>
          client.connection.withDeadline(Date.now() + POLL_MS, () =>
            client.workflowService.pollActivityTaskQueue({
              namespace: 'default',
              taskQueue: { name: taskQueue },
              identity,
            }),
          ),
        );
      } catch {
        // A poll ended by its deadline or the stop; the loop decides.
      }
    }
  })();
  const stop = () => stopped.abort();
  stops.push(stop);
  return stop;
}

/** A PartnerRate for `identity` on `taskQueue`: the share it last handed its pacer, and every share since `since`. */
function rateOf(taskQueue: string, identity: string): { share: () => number | undefined; shares: number[] } {
  let last: number | undefined;
  const shares: number[] = [];
  const rate = new PartnerRate({
    workflowService: connection.client.workflowService,
    namespace: 'default',
    serviceTaskQueue: taskQueue,
    identity,
    pacer: new CallPacer(N),
    maxCallsPerSecond: N,
    membership: MEMBERSHIP,
    onShare: (_rate, share) => {
      last = share;
      shares.push(share);
    },
  });
  rate.start();
  stops.push(() => rate.stop());
  return { share: () => last, shares };
}

const reaches = (what: string, read: () => number | undefined, share: number, timeoutMs: number) =>
  until(what, async () => (read() === share ? true : undefined), timeoutMs, 100);

describe('who shares the partner-wide rate', () => {
  it('is every worker polling the service queue, on any partition, and no worker gone; one unheard for long claims nothing meanwhile', async () => {
    const taskQueue = uniqueTaskQueue('partner-rate-members');
    const stopSelf = pollAs(taskQueue, 'self');
    pollAs(taskQueue, 'other');
    const goneOnes = Array.from({ length: 6 }, (_, index) => pollAs(taskQueue, `gone-${index}`));
    const self = rateOf(taskQueue, 'self');
    const other = rateOf(taskQueue, 'other');

    // Eight pollers over the queue's four partitions: the root lists only those forwarded to it.
    await reaches('a share of 2 (16 over 8 pollers)', self.share, 2, 15_000);
    await reaches("the other's share of 2", other.share, 2, 5_000);

    // Six workers killed: once the server has not heard from them for goneAfterMs, the two left share N.
    for (const stop of goneOnes) stop();
    await reaches('a share of 8 once the six are gone', self.share, 8, MEMBERSHIP.goneAfterMs + POLL_MS + 10_000);
    await reaches("the other's share of 8", other.share, 8, 5_000);

    // A worker alive but unheard (its slots all taken, so it does not poll): it gives up its share
    // before the other stops counting it, so the two never hold more than N between them.
    stopSelf();
    const unheardSince = Date.now();
    other.shares.length = 0;
    await reaches('no share while unheard', self.share, 0, MEMBERSHIP.claimWithinMs + POLL_MS + 5_000);
    expect(Date.now() - unheardSince).toBeLessThan(MEMBERSHIP.goneAfterMs);

    // Heard again, it takes its share back; the other never counted it out.
    pollAs(taskQueue, 'self');
    await reaches('its share back once heard', self.share, 8, 10_000);
    expect(Math.max(...other.shares)).toBe(8);
  });
});
