/**
 * A fresh Temporal and a client of it, for one benchmark: a headless dev server (in memory, like the
 * tests'), or with `cluster` the cluster profile's server on PostgreSQL in a temporary folder.
 */
import { Client, Connection } from '@temporalio/client';
import { generatePayloadKey, rampflowDataConverter } from '../../codec';
import { PayloadKeysSchema } from '../../config/env';
import { startDevServer, type DevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';
import { startTemporaryCluster } from '../../dev/temporary-cluster';

/** Benchmarks run encrypted, like production: one key per run, also given to the child processes. */
export const BENCH_PAYLOAD_KEYS_VARIABLE = process.env.RAMPFLOW_PAYLOAD_KEYS || generatePayloadKey('bench');
export const BENCH_PAYLOAD_KEYS = PayloadKeysSchema.parse(BENCH_PAYLOAD_KEYS_VARIABLE);

export interface BenchTemporal {
  server: Pick<DevServer, 'address' | 'namespace'>;
  connection: Connection;
  client: Client;
  stop(): Promise<void>;
}

export async function startBenchTemporal(options: { cluster?: boolean } = {}): Promise<BenchTemporal> {
  let server: BenchTemporal['server'];
  let stopServer: () => Promise<void>;
  if (options.cluster) {
    const cluster = await startTemporaryCluster();
    // close(), not stop(): it also removes the data folder.
    [server, stopServer] = [cluster, () => cluster.close()];
  } else {
    const devServer = await startDevServer({ port: await freePort(), headless: true });
    [server, stopServer] = [devServer, () => devServer.stop()];
  }
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({
    connection,
    namespace: server.namespace,
    dataConverter: rampflowDataConverter(BENCH_PAYLOAD_KEYS),
  });
  return {
    server,
    connection,
    client,
    async stop() {
      await connection.close();
      await stopServer();
    },
  };
}

/** True once some worker polls the task queue for workflow tasks. */
export async function workerIsPolling(client: Client, taskQueue: string): Promise<boolean> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  return pollers.length > 0;
}

/** Counts workflows matching a visibility query (cheap: one call, no listing). */
export async function countWorkflows(client: Client, query: string): Promise<number> {
  return (await client.workflow.count(query)).count;
}
