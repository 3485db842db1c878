/**
 * `npm run cluster` is idempotent: a second start on the same data folder reuses PostgreSQL's data
 * (the schema step and the setup script find everything done), and what the first run stored is
 * still there. A start with another history shard count is refused before anything starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { startTemporalCluster, type ClusterOptions, type TemporalCluster } from '../../dev/temporal-cluster';

const dataDir = mkdtempSync(join(tmpdir(), 'rampflow-cluster-second-start-'));
let cluster: TemporalCluster | undefined;

afterAll(async () => {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(options: Partial<ClusterOptions> = {}): Promise<{ cluster: TemporalCluster; progress: string[] }> {
  const progress: string[] = [];
  const started = await startTemporalCluster({
    dataDir,
    port: await freePort(),
    historyShards: 4,
    namespace: 'default',
    progress: (line) => progress.push(line),
    ...options,
  });
  return { cluster: started, progress };
}

async function withClient<T>(address: string, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

describe('a second start of the cluster', () => {
  it('reuses the data: a workflow started before the stop is there after it, still findable by its search attributes', async () => {
    const first = await start();
    cluster = first.cluster;
    expect(first.progress.join('\n')).toContain('new data');
    // No worker polls this queue: the workflow simply stays open in the database.
    await withClient(cluster.address, (client) =>
      client.workflow.start('customerJourney', {
        taskQueue: 'second-start',
        workflowId: 'customer/second-start',
        args: [],
        searchAttributes: { RampExternalId: ['second-start'] },
      }),
    );
    await cluster.stop();
    cluster = undefined;

    const second = await start();
    cluster = second.cluster;
    expect(second.progress.join('\n')).toContain('reusing the data');
    const found = await withClient(cluster.address, async (client) => {
      const description = await client.workflow.getHandle('customer/second-start').describe();
      // Visibility writes trail the start: wait for the index rather than for a fixed time.
      for (let attempt = 0; attempt < 60; attempt++) {
        const { count } = await client.workflow.count("RampExternalId = 'second-start'");
        if (count === 1) return description.status.name;
        await new Promise((wake) => setTimeout(wake, 500));
      }
      return 'not in visibility';
    });
    expect(found).toBe('RUNNING');
  });

  it('refuses another history shard count, naming the one to use', async () => {
    await cluster?.stop();
    cluster = undefined;
    await expect(start({ historyShards: 8 })).rejects.toThrow(
      'was created with 4 history shards and cannot change to 8: start it with --history-shards 4',
    );
  });
});
