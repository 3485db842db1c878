/**
 * The worker process (`rampflow worker`, `npm run worker`): configuration from the environment,
 * Prometheus metrics from the Temporal runtime, structured logs, and a graceful shutdown on SIGINT
 * or SIGTERM that lets in-flight activities finish.
 */
import { NativeConnection, Runtime } from '@temporalio/worker';
import { parseEnv, RampEnvSchema, temporalTls, TemporalEnvSchema, WorkerEnvSchema } from '../config/env';
import { RampClient } from '../ramp';
import { createLogger, sdkLogger } from './logging';
import { createRampflowWorker } from './worker';

export async function runWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const temporal = parseEnv(TemporalEnvSchema, env);
  const rampEnv = parseEnv(RampEnvSchema, env);
  const workerEnv = parseEnv(WorkerEnvSchema, env);
  const logger = createLogger(workerEnv.LOG_LEVEL, 'rampflow-worker');

  Runtime.install({
    logger: sdkLogger(logger),
    // The SDK stops the worker on these signals: polling ends, in-flight tasks get shutdownGraceTime.
    shutdownSignals: ['SIGINT', 'SIGTERM'],
    telemetryOptions: workerEnv.WORKER_METRICS_PORT
      ? { metrics: { prometheus: { bindAddress: `0.0.0.0:${workerEnv.WORKER_METRICS_PORT}` } } }
      : {},
  });

  const connection = await NativeConnection.connect({
    address: temporal.TEMPORAL_ADDRESS,
    tls: temporalTls(temporal),
    ...(temporal.TEMPORAL_API_KEY ? { apiKey: temporal.TEMPORAL_API_KEY } : {}),
  });
  const ramp = new RampClient({ baseUrl: rampEnv.RAMP_BASE_URL, apiKey: rampEnv.RAMP_API_KEY, apiSecret: rampEnv.RAMP_API_SECRET });
  try {
    const worker = await createRampflowWorker({ connection, namespace: temporal.TEMPORAL_NAMESPACE, taskQueue: temporal.TEMPORAL_TASK_QUEUE, ramp });
    logger.info(
      {
        address: temporal.TEMPORAL_ADDRESS,
        namespace: temporal.TEMPORAL_NAMESPACE,
        taskQueue: temporal.TEMPORAL_TASK_QUEUE,
        rampBaseUrl: rampEnv.RAMP_BASE_URL,
        metrics: workerEnv.WORKER_METRICS_PORT ? `http://0.0.0.0:${workerEnv.WORKER_METRICS_PORT}/metrics` : 'off',
      },
      'worker started',
    );
    await worker.run();
    logger.info('worker stopped');
  } finally {
    await ramp.close();
    await connection.close();
  }
}
