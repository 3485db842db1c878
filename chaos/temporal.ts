/**
 * The Temporal a chaos run plays on, and the faults it can strike there. By default a dev server on a
 * database file (restartable with every history intact); with `--cluster` the cluster profile as the
 * cluster suite runs it (dev/temporary-cluster.ts: the Temporal server, every role in one process, on
 * a private PostgreSQL, in a temporary folder), where PostgreSQL itself can be stopped and started.
 */
import { startTemporaryCluster } from '../dev/temporary-cluster';
import { startTemporalOnFile } from '../test/faults/support/temporal-on-file';

export interface ChaosTemporal {
  /** host:port of the frontend; the same across restarts. */
  address: string;
  profile: 'dev server' | 'cluster';
  /**
   * Ends the server and starts it again on the same port and data. The dev server is stopped
   * (SIGTERM, as a supervisor would); the cluster's server is killed (SIGKILL, as a crash or an OOM
   * kill would), so it releases no shard and the new process has to take them back.
   */
  restartServer(): Promise<void>;
  /** Cluster only: PostgreSQL stopped (fast shutdown, every session cut) for `downMs`, then started; the server stays up. */
  restartPostgres?(downMs: number): Promise<void>;
  /** Stops everything for good and removes the data. */
  close(): Promise<void>;
}

const pause = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));

export async function startChaosTemporal(cluster: boolean): Promise<ChaosTemporal> {
  if (!cluster) {
    const temporal = await startTemporalOnFile();
    return {
      address: temporal.address,
      profile: 'dev server',
      async restartServer() {
        await temporal.stop();
        await temporal.start();
      },
      close: () => temporal.close(),
    };
  }
  const temporal = await startTemporaryCluster();
  return {
    address: temporal.address,
    profile: 'cluster',
    async restartServer() {
      await temporal.killServer();
      await temporal.startServer();
    },
    async restartPostgres(downMs) {
      await temporal.postgres.stop();
      await pause(downMs);
      await temporal.postgres.start();
    },
    close: () => temporal.close(),
  };
}
