/** A fresh headless Temporal dev server (in memory, like the tests') and a client of it, for one benchmark. */
import { Client, Connection } from '@temporalio/client';
import { generatePayloadKey, rampflowDataConverter } from '../../codec';
import { PayloadKeysSchema } from '../../config/env';
import { startDevServer, type DevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';

/** Benchmarks run encrypted, like production: one key per run, also given to the child processes. */
export const BENCH_PAYLOAD_KEYS_VARIABLE = process.env.RAMPFLOW_PAYLOAD_KEYS || generatePayloadKey('bench');
export const BENCH_PAYLOAD_KEYS = PayloadKeysSchema.parse(BENCH_PAYLOAD_KEYS_VARIABLE);

export interface BenchTemporal {
  server: DevServer;
  connection: Connection;
  client: Client;
  stop(): Promise<void>;
}

export async function startBenchTemporal(): Promise<BenchTemporal> {
  const server = await startDevServer({ port: await freePort(), headless: true });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace, dataConverter: rampflowDataConverter(BENCH_PAYLOAD_KEYS) });
  return {
    server,
    connection,
    client,
    async stop() {
      await connection.close();
      await server.stop();
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
