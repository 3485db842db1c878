/**
 * The partner API over real HTTP on loopback, against the shared dev server with a rampflow worker and
 * the sandbox: idempotent signup answering the KYC link in one round trip (and 202 without it when no
 * worker answers in time), the journey's state and its deposits page by page, operator actions,
 * bad input, refused authentication, Temporal away (503), and the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContract } from '../../client/contract';
import { createRampflowClient, SIGNUP_GRACE_MS, type RampflowClient } from '../../client';
import { freePort } from '../../dev/ports';
import { buildOpenApiDocument } from '../../partner-api/openapi';
import { buildPartnerApi } from '../../partner-api/server';
import { depositWorkflowId, journeyWorkflowId } from '../../workflows/common/messages';
import { RampExternalId, RampStage } from '../../observability/search-attributes';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { testPayloadKeys, uniqueTaskQueue } from '../support/temporal';

const TOKEN = 'partner-api-test-token-0123456789abcdef';
const quiet = pino({ level: 'silent' });

let h: JourneyHarness;
let rampflow: RampflowClient;
let app: FastifyInstance;
let baseUrl: string;

async function listen(api: FastifyInstance): Promise<string> {
  await api.listen({ port: 0, host: '127.0.0.1' });
  const address = api.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  h = await startJourneyHarness();
  rampflow = await createRampflowClient({
    connection: h.client.connection as Connection,
    taskQueue: h.taskQueue,
    payloadKeys: testPayloadKeys(),
  });
  app = buildPartnerApi({ token: TOKEN, rampflow, logger: quiet });
  baseUrl = await listen(app);
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string | null; base?: string } = {},
) {
  const token = options.token === undefined ? TOKEN : options.token;
  const response = await fetch(`${options.base ?? baseUrl}${path}`, {
    method,
    headers: {
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const signup = (externalId: string) => ({
  customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
});

describe('the partner API', () => {
  it('starts a journey on signup and answers its KYC link in the same round trip; a repeated signup returns the same journey (one run) and the link at once', async () => {
    const externalId = `api-${randomUUID()}`;
    const reference = { externalId, workflowId: journeyWorkflowId(externalId), stateUrl: `/journeys/${externalId}` };
    const first = await call('POST', '/journeys', signup(externalId));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      ...reference,
      stage: expect.stringMatching(/^(CREATING_CUSTOMER|AWAITING_KYC)$/),
      kycLink: expect.stringMatching(/^https?:\/\//),
    });
    expect(first.headers.get('location')).toBe(`/journeys/${externalId}`);
    const handle = h.client.workflow.getHandle(journeyWorkflowId(externalId));
    const { runId } = await handle.describe();

    const startedAt = Date.now();
    const again = await call('POST', '/journeys', {
      ...signup(externalId),
      customer: { ...signup(externalId).customer, realName: 'Ada King' },
    });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ...reference, stage: expect.any(String), kycLink: first.body.kycLink });
    const after = await handle.describe();
    expect(after.runId).toBe(runId);
    expect(after.status.name).toBe('RUNNING');

    // The journey runs: its state shows it waiting for KYC at the service.
    let state: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 300 && state.stage !== 'AWAITING_KYC'; attempt++) {
      const answer = await call('GET', `/journeys/${externalId}`);
      expect(answer.status).toBe(200);
      state = answer.body;
      if (state.stage !== 'AWAITING_KYC') await new Promise((wake) => setTimeout(wake, 100));
    }
    expect(state).toMatchObject({ externalId, stage: 'AWAITING_KYC' });

    // Operator actions: retry is refused while nothing is parked (409, with the reason); close ends it.
    const retry = await call('POST', `/journeys/${externalId}/retry`, {});
    expect(retry.status).toBe(409);
    expect(String(retry.body.error)).toContain('not in NEEDS_ATTENTION');
    const close = await call('POST', `/journeys/${externalId}/close`, { reason: 'test over' });
    expect(close).toMatchObject({ status: 200, body: { closed: true } });
    await expect(handle.result()).resolves.toEqual({ stage: 'CLOSED', reason: 'test over' });

    // A signup of the ended journey answers as before: 202, the journey as it is (never started again).
    const ended = await call('POST', '/journeys', signup(externalId));
    expect(ended.status).toBe(202);
    expect(ended.body).toEqual({ ...reference, stage: 'CLOSED' });
    expect((await handle.describe()).runId).toBe(runId);
  });

  it('answers 202 without the KYC link within the bounded wait when no worker runs the journey, and starts it', async () => {
    const idle = buildPartnerApi({
      token: TOKEN,
      rampflow: await createRampflowClient({
        connection: h.client.connection as Connection,
        taskQueue: uniqueTaskQueue('no-worker'),
        payloadKeys: testPayloadKeys(),
      }),
      logger: quiet,
      signupWaitSeconds: 1,
    });
    const base = await listen(idle);
    try {
      const externalId = `api-idle-${randomUUID()}`;
      const startedAt = Date.now();
      const answer = await call('POST', '/journeys', signup(externalId), { base });
      expect(Date.now() - startedAt).toBeLessThan(1_000 + SIGNUP_GRACE_MS + 2_000);
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({
        externalId,
        workflowId: journeyWorkflowId(externalId),
        stateUrl: `/journeys/${externalId}`,
        stage: 'CREATING_CUSTOMER',
      });
      const handle = h.client.workflow.getHandle(journeyWorkflowId(externalId));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    } finally {
      await idle.close();
    }
  });

  it("resends a stream's parked partner event deliveries: 400 for a malformed stream, 404 when none are under way", async () => {
    expect((await call('POST', '/partner-events/resend', { stream: 'customers/x' })).status).toBe(400);
    expect((await call('POST', '/partner-events/resend', {})).status).toBe(400);
    expect((await call('POST', '/partner-events/resend', { stream: `customer/nobody-${Date.now()}` })).status).toBe(
      404,
    );
    const parked = await call('GET', '/partner-events/parked');
    expect(parked.status).toBe(200);
    expect(parked.body.streams).toEqual(expect.any(Array));
    expect((await call('GET', '/partner-events/parked', undefined, { token: null })).status).toBe(401);
  });

  it('answers 404 for a journey that does not exist', async () => {
    expect((await call('GET', '/journeys/nobody-here')).status).toBe(404);
    expect((await call('POST', '/journeys/nobody-here/cancel', {})).status).toBe(404);
  });

  it("lists a customer's deposits a page at a time", async () => {
    const externalId = `api-deposits-${randomUUID()}`;
    // Three deposit workflows of this customer, on a task queue no worker polls: visibility lists
    // them by their search attributes whether or not they run.
    const idleQueue = uniqueTaskQueue('idle');
    const depositIds = [1, 2, 3].map((n) => `${externalId}-d${n}`);
    for (const depositId of depositIds) {
      await h.client.workflow.start('depositLifecycle', {
        workflowId: depositWorkflowId(depositId),
        taskQueue: idleQueue,
        args: [{}],
        typedSearchAttributes: [
          { key: RampExternalId, value: externalId },
          { key: RampStage, value: 'RECEIVED' },
        ],
      });
    }
    try {
      // Visibility is eventually consistent: page only once it lists all three.
      const all = () => call('GET', `/journeys/${externalId}/deposits?pageSize=10`);
      let listed = await all();
      for (let attempt = 0; attempt < 300 && (listed.body.deposits as unknown[]).length < 3; attempt++) {
        await new Promise((wake) => setTimeout(wake, 100));
        listed = await all();
      }
      expect(listed.body.deposits).toHaveLength(3);
      const first = await call('GET', `/journeys/${externalId}/deposits?pageSize=2`);
      expect(first.status).toBe(200);
      expect(first.body.deposits).toHaveLength(2);
      expect(first.body.nextPageToken).toEqual(expect.any(String));
      const second = await call(
        'GET',
        `/journeys/${externalId}/deposits?pageSize=2&nextPageToken=${String(first.body.nextPageToken)}`,
      );
      expect(second.status).toBe(200);
      expect(second.body.nextPageToken).toBeUndefined();
      const seen = [
        ...(first.body.deposits as { depositId: string }[]),
        ...(second.body.deposits as { depositId: string }[]),
      ];
      expect(seen.map((deposit) => deposit.depositId).sort()).toEqual(depositIds);
      expect(seen[0]).toMatchObject({
        externalId,
        stage: 'RECEIVED',
        status: 'RUNNING',
        workflowId: expect.stringMatching(/^deposit\//),
      });

      const badPage = await call('GET', `/journeys/${externalId}/deposits?pageSize=0&stage=SOMEWHERE`);
      expect(badPage.status).toBe(400);
      expect((badPage.body.issues as { path: string }[]).map((issue) => issue.path)).toEqual(['pageSize', 'stage']);
    } finally {
      for (const depositId of depositIds)
        await h.client.workflow.getHandle(depositWorkflowId(depositId)).terminate('test over');
    }
  });

  it('refuses bad input with 400, naming every bad field, before anything reaches Temporal', async () => {
    const response = await call('POST', '/journeys', { customer: { realName: 'X' }, offramp: { currency: 'usdt' } });
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: 'customer.externalId', message: 'Invalid input: expected string, received undefined' },
      { path: 'customer.email', message: 'Invalid input: expected string, received undefined' },
      { path: 'offramp.currency', message: 'a crypto currency code such as USDT' },
      { path: 'offramp.network', message: 'Invalid input: expected string, received undefined' },
      { path: 'offramp.bankAccount', message: 'Invalid input: expected object, received undefined' },
    ]);
    const badId = await call('GET', '/journeys/has%20space');
    expect(badId.status).toBe(400);
    expect(badId.body.issues).toEqual([
      { path: 'externalId', message: 'letters, digits and . _ : @ - only, at most 128' },
    ]);
    const badRetry = await call('POST', '/journeys/someone/retry', { correctedInput: { onRamp: {} } });
    expect(badRetry.status).toBe(400);
    expect((badRetry.body.issues as { path: string }[])[0]!.path).toBe('correctedInput');
    const notJson = await fetch(`${baseUrl}/journeys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"customer":',
    });
    expect(notJson.status).toBe(400);
  });

  it('refuses a request without the bearer token, or with another, and serves the OpenAPI document without one', async () => {
    for (const token of [null, 'wrong-token', `${TOKEN}x`, '']) {
      const response = await call('POST', '/journeys', signup(`api-${randomUUID()}`), { token });
      expect(response.status, String(token)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await call('GET', '/journeys/anyone', undefined, { token: null })).status).toBe(401);
    expect((await call('GET', '/openapi.json', undefined, { token: null })).status).toBe(200);
  });

  it('answers 503 while Temporal cannot be reached, so the partner retries', async () => {
    const away = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    const offline = buildPartnerApi({
      token: TOKEN,
      rampflow: await createRampflowClient({
        connection: away,
        taskQueue: h.taskQueue,
        payloadKeys: testPayloadKeys(),
      }),
      logger: quiet,
      temporalTimeoutMs: 3_000,
    });
    const base = await listen(offline);
    try {
      const start = await call('POST', '/journeys', signup(`api-${randomUUID()}`), { base });
      expect(start.status).toBe(503);
      expect(start.headers.get('retry-after')).toBe('5');
      expect((await call('GET', '/journeys/anyone', undefined, { base })).status).toBe(503);
      expect((await call('GET', '/journeys/anyone/deposits', undefined, { base })).status).toBe(503);
      // Validation still answers: bad input never needed Temporal.
      expect((await call('POST', '/journeys', { customer: {} }, { base })).status).toBe(400);
    } finally {
      await offline.close();
      await away.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, served as generated', async () => {
    const document = buildOpenApiDocument();
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((await call('GET', '/openapi.json', undefined, { token: null })).body).toEqual(
      JSON.parse(JSON.stringify(document)),
    );
  });

  it('describes a journey request exactly as the published contract does', () => {
    const { $schema: _dialect, ...journeyInput } = buildContract().workflows.customerJourney.input;
    expect(buildOpenApiDocument().components.schemas.JourneyRequest).toEqual(journeyInput);
  });
});
