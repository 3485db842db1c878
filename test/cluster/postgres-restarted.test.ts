/**
 * Fault, on the production topology: PostgreSQL, which holds every history and the visibility index,
 * stopped (fast shutdown: every open session cut) and started again while many journeys are under
 * way, twice. The Temporal server is not restarted: it must ride out the lost connections and carry
 * on, as must the worker and the receiver. Expected: every journey finishes a deposit each way with
 * nothing lost or doubled.
 */
import { describe, expect, it } from 'vitest';
import { startTemporaryCluster } from '../../dev/temporary-cluster';
import { expectNothingLostThroughTwoOutages, outageStackPerFile } from '../faults/support/outage-case';
import { pause } from '../faults/support/until';

const { stack: currentStack, worker: currentWorker } = outageStackPerFile(startTemporaryCluster);

describe('PostgreSQL restarted mid-journey (cluster profile)', () => {
  it('loses and doubles nothing when the database stops and starts again under the running server, twice', async () => {
    const [stack, worker] = [currentStack(), currentWorker()];
    await expectNothingLostThroughTwoOutages({
      stack,
      worker,
      prefix: 'postgres-restarted',
      journeys: 20,
      timeoutMs: 300_000,
      async outage(random) {
        await stack.temporal.postgres.stop();
        await pause(2_000 + random.next() * 3_000);
        await stack.temporal.postgres.start();
      },
      // The server, too, rode out both outages without being restarted.
      stillRunning: () => expect(stack.temporal.serverRunning(), 'the Temporal server exited').toBe(true),
    });
  });
});
