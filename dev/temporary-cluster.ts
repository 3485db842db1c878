/**
 * A throwaway cluster-profile Temporal (dev/temporal-cluster.ts) for tests and benchmarks: PostgreSQL
 * and the server on free ports, in a temporary data folder that close() removes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster';

export interface TemporaryCluster extends TemporalCluster {
  /** Stops everything and removes the data folder. */
  close(): Promise<void>;
}

export async function startTemporaryCluster(
  options: { historyShards?: number; progress?: (line: string) => void } = {},
): Promise<TemporaryCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rampflow-cluster-'));
  try {
    const cluster = await startTemporalCluster({
      dataDir,
      port: await freePort(),
      historyShards: options.historyShards ?? 4,
      namespace: 'default',
      progress: options.progress ?? (() => {}),
    });
    return Object.assign(cluster, {
      async close() {
        await cluster.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
