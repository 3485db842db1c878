/**
 * The floor's worker, run as a child process like rampflow's (so their memory compares): the floor
 * workflows and their no-op activity on FLOOR_TASK_QUEUE, until SIGTERM.
 */
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { floorActivities } from './activities';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  const taskQueue = process.env.FLOOR_TASK_QUEUE;
  if (!address || !taskQueue) throw new Error('TEMPORAL_ADDRESS and FLOOR_TASK_QUEUE are required');
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: ['SIGINT', 'SIGTERM'] });
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: join(__dirname, 'workflows.ts'),
      activities: floorActivities,
    });
    await worker.run();
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
