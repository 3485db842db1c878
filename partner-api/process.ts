/**
 * The partner API process (`rampflow partner-api`): configuration from the environment (TEMPORAL_*,
 * PARTNER_API_PORT, PARTNER_API_TOKEN, PARTNER_API_SIGNUP_WAIT_SECONDS, PARTNER_EVENTS_*, LOG_LEVEL), the partner event store opened
 * as a reader (the worker is its writer), the HTTP server, and a graceful stop on
 * SIGINT/SIGTERM (requests in flight finish; new ones get 503 while closing).
 *
 * The Temporal connection is lazy, so the API starts and answers (503) even while Temporal is down,
 * and recovers by itself when it is back; so does the PostgreSQL event store (503 while it is away).
 */
import { Connection } from '@temporalio/client';
import {
  parseEnv,
  PartnerApiEnvSchema,
  PartnerEventsEnvSchema,
  PayloadEnvSchema,
  temporalTls,
  TemporalEnvSchema,
  WorkerEnvSchema,
} from '../config/env';
import { createLogger } from '../config/logger';
import { createRampflowClient } from '../client';
import { openPartnerEventStore } from '../partner-events/open-store';
import { buildPartnerApi } from './server';

export async function runPartnerApi(
  options: { host?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const temporal = parseEnv(TemporalEnvSchema.extend(PayloadEnvSchema.shape), env);
  const api = parseEnv(PartnerApiEnvSchema, env);
  const eventsEnv = parseEnv(PartnerEventsEnvSchema, env);
  const { LOG_LEVEL } = parseEnv(WorkerEnvSchema.pick({ LOG_LEVEL: true }), env);
  const logger = createLogger('rampflow-partner-api', LOG_LEVEL);

  const connection = Connection.lazy({
    address: temporal.TEMPORAL_ADDRESS,
    tls: temporalTls(temporal),
    ...(temporal.TEMPORAL_API_KEY ? { apiKey: temporal.TEMPORAL_API_KEY } : {}),
  });
  const rampflow = await createRampflowClient({
    connection,
    namespace: temporal.TEMPORAL_NAMESPACE,
    taskQueue: temporal.TEMPORAL_TASK_QUEUE,
    payloadKeys: temporal.RAMPFLOW_PAYLOAD_KEYS,
  });
  const events = await openPartnerEventStore(eventsEnv, temporal.RAMPFLOW_PAYLOAD_KEYS, { role: 'reader' });
  const app = buildPartnerApi({
    token: api.PARTNER_API_TOKEN,
    rampflow,
    events,
    logger,
    signupWaitSeconds: api.PARTNER_API_SIGNUP_WAIT_SECONDS,
  });
  try {
    await app.listen({ port: api.PARTNER_API_PORT, host: options.host ?? '0.0.0.0' });
    logger.info(
      {
        port: api.PARTNER_API_PORT,
        temporal: temporal.TEMPORAL_ADDRESS,
        namespace: temporal.TEMPORAL_NAMESPACE,
        taskQueue: temporal.TEMPORAL_TASK_QUEUE,
        // Which store, never the database URL (it holds a password).
        partnerEvents:
          eventsEnv.PARTNER_EVENTS_DATABASE_URL !== undefined ? 'postgresql' : eventsEnv.PARTNER_EVENTS_DIR,
      },
      'partner api listening',
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    logger.info('partner api stopping');
  } finally {
    await app.close();
    await events.close();
    await connection.close();
  }
  logger.info('partner api stopped');
}
