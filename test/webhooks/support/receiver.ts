/**
 * The webhook receiver on a loopback port for tests, and the helpers to talk to it and to inspect
 * what reached Temporal.
 */
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import pino from 'pino';
import { request } from 'undici';
import { z } from 'zod';
import { EncryptionCodec, payloadKeysFromEnv } from '../../../codec';
import type { RampClient } from '../../../ramp';
import { buildWebhookServer, type WebhookServerOptions } from '../../../webhooks/server';
import type { WebhookMetrics } from '../../../webhooks/metrics';
import { FAST_DEPOSIT_TIMINGS } from '../../support/test-journeys';

export const TEST_TOKEN = 'test-webhook-token-0123456789abcdef';

/** Production waits an hour for a target; tests a few seconds. */
export const FAST_EVENT_TIMINGS = {
  targetWaitSeconds: 30,
  firstRetrySeconds: 0.5,
  maxRetrySeconds: 2,
  notFoundGraceSeconds: 1,
};

export interface TestReceiver {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** The URL the service delivers to. */
  webhookUrl: string;
  metrics: WebhookMetrics;
  post(
    body: unknown,
    options?: { path?: string; contentType?: string | null; raw?: string | Buffer },
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export async function startReceiver(
  options: Omit<WebhookServerOptions, 'token' | 'allowedIps' | 'logger'> &
    Partial<Pick<WebhookServerOptions, 'token' | 'allowedIps' | 'logger'>>,
): Promise<TestReceiver> {
  const token = options.token ?? TEST_TOKEN;
  // Deposits the receiver starts get the same timings as those the test worker starts (journey harness).
  const { app, metrics } = buildWebhookServer({
    allowedIps: [],
    eventTimings: FAST_EVENT_TIMINGS,
    depositTimings: FAST_DEPOSIT_TIMINGS,
    logger: pino({ level: 'silent' }),
    ...options,
    token,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const webhookUrl = `${url}/webhooks/ramp/${token}`;
  return {
    url,
    webhookUrl,
    metrics,
    async post(body, postOptions = {}) {
      const contentType = postOptions.contentType === undefined ? 'application/json' : postOptions.contentType;
      const response = await request(`${url}${postOptions.path ?? `/webhooks/ramp/${token}`}`, {
        method: 'POST',
        headers: contentType === null ? {} : { 'content-type': contentType },
        body: postOptions.raw ?? JSON.stringify(body),
      });
      return { status: response.statusCode, body: await response.body.text() };
    },
    close: () => app.close(),
  };
}

/** Whether a workflow with this ID exists (describe is strongly consistent, unlike visibility lists). */
export async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The signals a workflow has received, by name, in order (from its history, opened with the run's payload key). */
export async function signalsReceived(handle: WorkflowHandle): Promise<{ name: string; key?: string }[]> {
  const history = await handle.fetchHistory();
  const codec = new EncryptionCodec(payloadKeysFromEnv());
  const signals = (history.events ?? [])
    .map((event) => event.workflowExecutionSignaledEventAttributes)
    .filter((attributes) => attributes != null);
  return Promise.all(
    signals.map(async (attributes) => {
      const [sealed] = attributes.input?.payloads ?? [];
      const decoded = sealed
        ? defaultPayloadConverter.fromPayload<{ key?: string }>((await codec.decode([sealed]))[0]!)
        : {};
      return { name: attributes.signalName ?? '', ...(decoded.key ? { key: decoded.key } : {}) };
    }),
  );
}

/** The deposit reports a journey took by update (workflows/common/messages.ts), in order: the keys of every batch accepted. */
export async function depositReportsTaken(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  const codec = new EncryptionCodec(payloadKeysFromEnv());
  const accepted = (history.events ?? [])
    .map((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input)
    .filter((input) => input?.name === 'depositReports');
  const batches = await Promise.all(
    accepted.map(async (input) => {
      const [sealed] = input?.args?.payloads ?? [];
      return sealed
        ? defaultPayloadConverter
            .fromPayload<{ key: string }[]>((await codec.decode([sealed]))[0]!)
            .map((report) => report.key)
        : [];
    }),
  );
  return batches.flat();
}

/** Polls `probe` until it returns a value `accept` holds for; fails with the last value after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} never happened; last seen: ${JSON.stringify(value)}`);
    await new Promise((wake) => setTimeout(wake, 150));
  }
}

const DeliveryLogSchema = z.array(
  z.looseObject({
    event: z.string(),
    payloadId: z.string(),
    status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
    attempts: z.array(
      z.looseObject({ trigger: z.string(), time: z.string(), outcome: z.string(), httpStatus: z.number().nullable() }),
    ),
  }),
);
export type DeliveryLog = z.infer<typeof DeliveryLogSchema>;

/** The sandbox's log of deliveries of one record's events (GET /sandbox/deliveries). */
export function deliveriesOf(ramp: RampClient, payloadId: string): Promise<DeliveryLog> {
  return ramp.http.request(
    { method: 'GET', path: '/sandbox/deliveries', query: `payloadId=${encodeURIComponent(payloadId)}` },
    DeliveryLogSchema,
  );
}

/** The sandbox's log of every delivery to the partner, oldest first. */
export function allDeliveries(ramp: RampClient): Promise<DeliveryLog> {
  return ramp.http.request({ method: 'GET', path: '/sandbox/deliveries' }, DeliveryLogSchema);
}
