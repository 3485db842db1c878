/**
 * The receiver process (`rampflow webhooks serve`, `npm run webhooks`): configuration from the
 * environment, the HTTP server, the reconciliation schedule, and a graceful stop on SIGINT/SIGTERM
 * (in-flight handoffs finish; new requests get 503 while closing).
 *
 * The Temporal connection is lazy, so the receiver starts and answers (503) even while Temporal is
 * down, and recovers by itself when it is back.
 */
import { Client, Connection } from '@temporalio/client';
import { rampflowDataConverter } from '../codec';
import {
  DepositTimingsEnvSchema,
  depositTimingsFromEnv,
  parseEnv,
  RampAssumptionsEnvSchema,
  PayloadEnvSchema,
  ReconcileEnvSchema,
  temporalTls,
  TemporalEnvSchema,
  WebhookEnvSchema,
  WorkerEnvSchema,
} from '../config/env';
import { createLogger } from '../config/logger';
import { loadAssumptionsFile } from '../ramp/assumptions-file';
import {
  DEFAULT_RECONCILE_INTERVAL_SECONDS,
  ensureReconcileSchedule,
  RECONCILE_SCHEDULE_ID,
} from './reconcile-schedule';
import { receiverBudgetFromEnv } from './receiver-budget';
import { buildWebhookServer, WEBHOOK_ROUTE } from './server';

export interface ReceiverProcessOptions {
  /** Create or update the reconciliation schedule at start (default true). */
  reconcileSchedule?: boolean;
  reconcileEverySeconds?: number;
  /** Interface to listen on (default all). */
  host?: string;
}

/** If Temporal is down at start, the schedule is ensured again this often until it succeeds. */
const SCHEDULE_RETRY_MS = 60_000;

export async function runWebhookReceiver(
  options: ReceiverProcessOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const temporal = parseEnv(TemporalEnvSchema.extend(PayloadEnvSchema.shape), env);
  const webhook = parseEnv(WebhookEnvSchema, env);
  const { RECONCILE_LIST_ORDER } = parseEnv(ReconcileEnvSchema, env);
  // The assumptions file, when it names the service's list order, wins over RECONCILE_LIST_ORDER.
  const listOrder =
    loadAssumptionsFile(parseEnv(RampAssumptionsEnvSchema, env).RAMP_ASSUMPTIONS_FILE).listOrder ??
    RECONCILE_LIST_ORDER;
  const depositTimings = depositTimingsFromEnv(parseEnv(DepositTimingsEnvSchema, env));
  const { LOG_LEVEL } = parseEnv(WorkerEnvSchema.pick({ LOG_LEVEL: true }), env);
  const logger = createLogger('rampflow-webhooks', LOG_LEVEL);

  const connection = Connection.lazy({
    address: temporal.TEMPORAL_ADDRESS,
    tls: temporalTls(temporal),
    ...(temporal.TEMPORAL_API_KEY ? { apiKey: temporal.TEMPORAL_API_KEY } : {}),
  });
  const client = new Client({
    connection,
    namespace: temporal.TEMPORAL_NAMESPACE,
    dataConverter: rampflowDataConverter(temporal.RAMPFLOW_PAYLOAD_KEYS),
  });
  const { app } = buildWebhookServer({
    token: webhook.WEBHOOK_TOKEN,
    allowedIps: webhook.WEBHOOK_ALLOWED_IPS,
    trustedProxies: webhook.WEBHOOK_TRUSTED_PROXIES,
    client,
    taskQueue: temporal.TEMPORAL_TASK_QUEUE,
    logger,
    routing: webhook.WEBHOOK_ROUTING,
    depositTimings,
    stageAgeScanSeconds: webhook.STAGE_AGE_SCAN_SECONDS,
    budget: receiverBudgetFromEnv(webhook),
  });

  let scheduleTimer: NodeJS.Timeout | undefined;
  const ensureSchedule = async (): Promise<void> => {
    try {
      const outcome = await ensureReconcileSchedule(client, {
        taskQueue: temporal.TEMPORAL_TASK_QUEUE,
        intervalSeconds: options.reconcileEverySeconds ?? DEFAULT_RECONCILE_INTERVAL_SECONDS,
        limits: { listOrder },
      });
      logger.info({ scheduleId: RECONCILE_SCHEDULE_ID, outcome }, 'reconciliation schedule in place');
    } catch (error) {
      logger.warn(
        { scheduleId: RECONCILE_SCHEDULE_ID, reason: error instanceof Error ? error.message : String(error) },
        'could not ensure the reconciliation schedule; trying again in a minute',
      );
      scheduleTimer = setTimeout(() => void ensureSchedule(), SCHEDULE_RETRY_MS);
      scheduleTimer.unref();
    }
  };

  try {
    await app.listen({ port: webhook.WEBHOOK_PORT, host: options.host ?? '0.0.0.0' });
    logger.info(
      {
        port: webhook.WEBHOOK_PORT,
        route: WEBHOOK_ROUTE,
        temporal: temporal.TEMPORAL_ADDRESS,
        namespace: temporal.TEMPORAL_NAMESPACE,
        taskQueue: temporal.TEMPORAL_TASK_QUEUE,
        allowedIps: webhook.WEBHOOK_ALLOWED_IPS.length === 0 ? 'any' : webhook.WEBHOOK_ALLOWED_IPS,
        trustedProxies: webhook.WEBHOOK_TRUSTED_PROXIES.length === 0 ? 'none' : webhook.WEBHOOK_TRUSTED_PROXIES,
        routing: webhook.WEBHOOK_ROUTING,
      },
      'webhook receiver listening',
    );
    if (options.reconcileSchedule ?? true) await ensureSchedule();
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    logger.info('webhook receiver stopping');
  } finally {
    if (scheduleTimer) clearTimeout(scheduleTimer);
    await app.close();
    await connection.close();
  }
  logger.info('webhook receiver stopped');
}
