/**
 * Fault, on the production topology: the Temporal server (every role, on PostgreSQL, 4 history shards)
 * killed outright (SIGKILL) while many journeys are under way, twice, and started again on the same
 * databases. Unlike a graceful stop it releases no shard and leaves its membership behind, so the new
 * process has to take the shards back. The worker process and the receiver stay up and reconnect by
 * themselves. Expected: every journey finishes a deposit each way with nothing lost or doubled.
 */
import { describe, it } from 'vitest';
import { startTemporaryCluster } from '../../dev/temporary-cluster';
import { expectNothingLostThroughTwoOutages, outageStackPerFile } from '../faults/support/outage-case';
import { pause } from '../faults/support/until';

const { stack: currentStack, worker: currentWorker } = outageStackPerFile(startTemporaryCluster);

describe('the Temporal server killed mid-journey (cluster profile)', () => {
  it('loses and doubles nothing when the server is killed outright and started again, twice', async () => {
    const [stack, worker] = [currentStack(), currentWorker()];
    await expectNothingLostThroughTwoOutages({
      stack,
      worker,
      prefix: 'server-killed',
      journeys: 20,
      timeoutMs: 300_000,
      async outage(random) {
        await stack.temporal.killServer();
        // Down for a moment, as under a supervisor that restarts it: the service keeps moving meanwhile.
        await pause(1_000 + random.next() * 3_000);
        await stack.temporal.startServer();
      },
    });
  });
});
