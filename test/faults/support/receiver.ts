/**
 * The webhook receiver on a fixed loopback port, so a case can take it down and bring it back at the
 * address the service delivers to. Its Temporal connection is lazy, as in `rampflow webhooks serve`:
 * it answers 503 while Temporal is away and recovers by itself.
 */
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { freePort } from '../../../dev/ports';
import type { ReceiverBudgetOptions } from '../../../webhooks/receiver-budget';
import { buildWebhookServer } from '../../../webhooks/server';
import type { DepositTimings } from '../../../workflows/schemas';
import type { RampEventTimings } from '../../../workflows/ramp-event/events';
import { FAST_DEPOSIT_TIMINGS } from '../../support/test-journeys';
import { TEST_TOKEN } from '../../webhooks/support/receiver';

/**
 * Seconds where production waits an hour, but more patient than the `temporal` project's: after an
 * outage a whole backlog of events arrives at once on a loaded machine, and in the events-only cases
 * an event that gave up waiting for its target would leave a journey with nothing to move it.
 */
const EVENT_TIMINGS = { targetWaitSeconds: 180, firstRetrySeconds: 0.5, maxRetrySeconds: 2 };

export interface RestartableReceiver {
  /** The URL the service delivers to; the same across restarts. */
  webhookUrl: string;
  isUp(): boolean;
  start(): Promise<void>;
  /** Stops listening: deliveries meet a refused connection. */
  stop(): Promise<void>;
}

export async function startRestartableReceiver(options: {
  client: Client;
  taskQueue: string;
  depositTimings?: Partial<DepositTimings>;
  eventTimings?: Partial<RampEventTimings>;
  logger?: pino.Logger;
  /** Over production's budget (webhooks/receiver-budget.ts), for a case whose service multiplies its deliveries. */
  budget?: Partial<ReceiverBudgetOptions>;
}): Promise<RestartableReceiver> {
  const port = await freePort();
  let app: FastifyInstance | undefined;
  const receiver: RestartableReceiver = {
    webhookUrl: `http://127.0.0.1:${port}/webhooks/ramp/${TEST_TOKEN}`,
    isUp: () => app !== undefined,
    async start() {
      if (app) return;
      // A fastify instance cannot listen again once closed: each start builds a new one.
      const built = buildWebhookServer({
        token: TEST_TOKEN,
        allowedIps: [],
        client: options.client,
        taskQueue: options.taskQueue,
        logger: options.logger ?? pino({ level: 'silent' }),
        eventTimings: { ...EVENT_TIMINGS, ...options.eventTimings },
        // Deposits it starts directly get the timings the case's worker gives those it starts.
        depositTimings: options.depositTimings ?? FAST_DEPOSIT_TIMINGS,
        ...(options.budget ? { budget: options.budget } : {}),
      }).app;
      await built.listen({ host: '127.0.0.1', port });
      app = built;
    },
    async stop() {
      await app?.close();
      app = undefined;
    },
  };
  await receiver.start();
  return receiver;
}
