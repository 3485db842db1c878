/**
 * The rampflow worker inside the test process, with a signed client the case configures (a short
 * per-attempt timeout, say) and the run's shared workflow bundle.
 */
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import type { RampClient } from '../../../ramp';
import { dataConverterFromEnv } from '../../../codec';
import { createRampflowWorker } from '../../../workers/worker';
import type { DepositTimings } from '../../../workflows/schemas';
import { FAST_DEPOSIT_TIMINGS } from '../../support/test-journeys';

export interface InProcessWorker {
  stop(): Promise<void>;
}

export async function startInProcessWorker(options: {
  temporalAddress: string;
  taskQueue: string;
  ramp: RampClient;
  outcomeUnknownRetryDelayMs?: number;
  /** FAST_DEPOSIT_TIMINGS unless given. */
  depositTimings?: Partial<DepositTimings>;
}): Promise<InProcessWorker> {
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await createRampflowWorker({
    connection,
    namespace: 'default',
    taskQueue: options.taskQueue,
    ramp: options.ramp,
    dataConverter: dataConverterFromEnv(),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    shutdownGraceTime: '2 seconds',
    depositTimings: options.depositTimings ?? FAST_DEPOSIT_TIMINGS,
    ...(options.outcomeUnknownRetryDelayMs !== undefined
      ? { outcomeUnknownRetryDelayMs: options.outcomeUnknownRetryDelayMs }
      : {}),
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
