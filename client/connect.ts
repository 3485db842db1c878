/**
 * Making a RampflowClient: from explicit options (a partner backend's own configuration) or from the
 * TEMPORAL_* environment variables every rampflow process reads (see README, "Configuration").
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { attachmentStoreFromEnv, type AttachmentStore } from '../attachments';
import { rampflowDataConverter } from '../codec';
import { parseEnv, PayloadEnvSchema, temporalTls, TemporalEnvSchema, type PayloadKey } from '../config/env';
import { RampflowClient } from './rampflow-client';

export interface RampflowClientOptions {
  /** host:port of the Temporal frontend (default 127.0.0.1:7233). Ignored when `connection` is given. */
  address?: string;
  /** Default `default`. */
  namespace?: string;
  /** The task queue rampflow's workers poll (default `rampflow`). */
  taskQueue?: string;
  /** A Temporal Cloud API key (implies TLS). Ignored when `connection` is given. */
  apiKey?: string;
  /** TLS settings, as the Temporal client takes them. Ignored when `connection` is given. */
  tls?: ConnectionOptions['tls'];
  /** A connection the caller owns and shares; `close()` then leaves it open. */
  connection?: Connection;
  /**
   * The payload keys (RAMPFLOW_PAYLOAD_KEYS, parsed by `PayloadKeysSchema`): every payload this client
   * sends is encrypted with the first, and what it reads is decrypted with whichever sealed it.
   */
  payloadKeys: readonly PayloadKey[];
  /** Where submitted documents are kept (the claim check); RAMPFLOW_ATTACHMENTS_DIR's folder when omitted. */
  attachmentStore?: AttachmentStore;
}

// The defaults are the environment schema's own, so the library and the processes agree.
const DEFAULTS = TemporalEnvSchema.parse({});

export async function createRampflowClient(options: RampflowClientOptions): Promise<RampflowClient> {
  const namespace = options.namespace ?? DEFAULTS.TEMPORAL_NAMESPACE;
  const taskQueue = options.taskQueue ?? DEFAULTS.TEMPORAL_TASK_QUEUE;
  const dataConverter = rampflowDataConverter(options.payloadKeys);
  const attachmentStore = options.attachmentStore ?? attachmentStoreFromEnv();
  if (options.connection)
    return new RampflowClient(
      new Client({ connection: options.connection, namespace, dataConverter }),
      taskQueue,
      undefined,
      attachmentStore,
    );
  const address = options.address ?? DEFAULTS.TEMPORAL_ADDRESS;
  const connection = await Connection.connect({
    address,
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
  }).catch((error: unknown) => {
    // The SDK's message does not say where it tried to connect, which is what an operator needs.
    throw new Error(
      `cannot connect to Temporal at ${address}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });
  return new RampflowClient(
    new Client({ connection, namespace, dataConverter }),
    taskQueue,
    () => connection.close(),
    attachmentStore,
  );
}

/** A client configured by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, TEMPORAL_API_KEY, TEMPORAL_TLS_* and RAMPFLOW_PAYLOAD_KEYS. */
export async function createRampflowClientFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RampflowClient> {
  // One parse of both sections, so a bad environment is reported whole.
  const temporal = parseEnv(TemporalEnvSchema.extend(PayloadEnvSchema.shape), env);
  return createRampflowClient({
    payloadKeys: temporal.RAMPFLOW_PAYLOAD_KEYS,
    address: temporal.TEMPORAL_ADDRESS,
    namespace: temporal.TEMPORAL_NAMESPACE,
    taskQueue: temporal.TEMPORAL_TASK_QUEUE,
    tls: temporalTls(temporal),
    ...(temporal.TEMPORAL_API_KEY ? { apiKey: temporal.TEMPORAL_API_KEY } : {}),
  });
}
