/**
 * A journey that ended without completing, read as a user reads it: `rampflow journey status` (a child
 * process, payloads encrypted with the run's keys, as in production) and the partner API's
 * GET /journeys/{externalId} show how it ended, decoded: its type, its reason and the fields it names,
 * never the customer's data. The history itself holds the failure sealed ("Encoded failure").
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError, type Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRampflowClient, RampflowWorkflowEndedError, type RampflowClient } from '../../client';
import { buildPartnerApi } from '../../partner-api/server';
import { depositWorkflowId, journeyWorkflowId } from '../../workflows/common/messages';
import { payoutWorkflowId } from '../../workflows/payout/messages';
import { startJourneyHarness, TEST_OFFRAMP, type JourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress, testPayloadKeys, uniqueTaskQueue } from '../support/temporal';

const TOKEN = 'partner-api-test-token-0123456789abcdef';
const BAD_EMAIL = 'grace-at-example.org';

let h: JourneyHarness;
let rampflow: RampflowClient;
let api: FastifyInstance;
let baseUrl: string;

beforeAll(async () => {
  h = await startJourneyHarness();
  rampflow = await createRampflowClient({
    connection: h.client.connection as Connection,
    taskQueue: h.taskQueue,
    payloadKeys: testPayloadKeys(),
  });
  api = buildPartnerApi({ token: TOKEN, rampflow, logger: pino({ level: 'silent' }) });
  await api.listen({ port: 0, host: '127.0.0.1' });
  const address = api.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await api?.close();
  await h?.close();
});

function rampflowCli(...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
}

async function getJourney(externalId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/journeys/${externalId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Started on Temporal directly, past the client's own validation, so the workflow itself refuses it. */
async function failedJourney(): Promise<string> {
  const externalId = `ended-${randomUUID()}`;
  const handle = await h.client.workflow.start('customerJourney', {
    taskQueue: h.taskQueue,
    workflowId: journeyWorkflowId(externalId),
    args: [{ customer: { externalId, realName: 'Grace Hopper', email: BAD_EMAIL }, offramp: TEST_OFFRAMP }],
  });
  await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  return externalId;
}

const ISSUES = [{ path: 'customer.email', message: 'Invalid email address' }];
const MESSAGE = 'invalid customerJourney input: customer.email: Invalid email address';

describe('a journey whose start input the workflow refused', () => {
  let externalId: string;
  beforeAll(async () => {
    externalId = await failedJourney();
  });

  it('keeps its failure sealed in the history', async () => {
    // A client without the codec reads the history as the server keeps it.
    const raw = new Client({ connection: h.client.connection, namespace: 'default' });
    const { events } = await raw.workflow.getHandle(journeyWorkflowId(externalId)).fetchHistory();
    const failed = events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
    expect(failed?.message).toBe('Encoded failure');
    expect(JSON.stringify(events)).not.toContain('customer.email');
  });

  it('journey status prints the decoded type, reason and bad fields, and exits 0', async () => {
    const human = await rampflowCli('journey', 'status', externalId);
    expect(human).toEqual({
      code: 0,
      stderr: '',
      stdout: `journey ${externalId} failed: InvalidStartInput: ${MESSAGE}\n  issue: customer.email: Invalid email address\n`,
    });

    const json = await rampflowCli('journey', 'status', externalId, '--json');
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual({
      externalId,
      status: 'FAILED',
      failure: { type: 'InvalidStartInput', message: MESSAGE, issues: ISSUES },
    });
    // The bad value itself is customer data: named by its path, never echoed.
    expect(human.stdout + json.stdout).not.toContain(BAD_EMAIL);
  });

  it('the partner API answers the decoded reason', async () => {
    const answer = await getJourney(externalId);
    expect(answer).toEqual({
      status: 200,
      body: { externalId, status: 'FAILED', failure: { type: 'InvalidStartInput', message: MESSAGE, issues: ISSUES } },
    });
    expect(JSON.stringify(answer.body)).not.toContain(BAD_EMAIL);
  });

  it('journey list carries how it ended', async () => {
    let listed: { externalId: string; status: string; failure?: unknown }[] = [];
    // The shared dev server holds every test's journeys, and the files beside this one start more than
    // the default 100 while it runs: a limit that reaches back to this file's own journey.
    const reachBack = ['--limit', '5000'];
    for (
      const deadline = Date.now() + 20_000;
      Date.now() < deadline && !listed.some((entry) => entry.externalId === externalId);
    ) {
      const result = await rampflowCli('journey', 'list', '--json', ...reachBack);
      expect(result.code).toBe(0);
      listed = JSON.parse(result.stdout) as typeof listed;
    }
    expect(listed.find((entry) => entry.externalId === externalId)).toMatchObject({
      status: 'FAILED',
      failure: { type: 'InvalidStartInput', message: MESSAGE, issues: ISSUES },
    });
    const table = await rampflowCli('journey', 'list', ...reachBack);
    // The shared dev server may hold another test's parked journey: then the list has the parked column too.
    expect(table.stdout).toMatch(
      /^EXTERNAL ID +STAGE +STATUS +CUSTOMER ID +STARTED +ENDED BECAUSE( +PARKED BECAUSE)?\n/,
    );
    expect(table.stdout).toMatch(
      new RegExp(`\\n${externalId} +- +FAILED +- +\\S+ +InvalidStartInput: ${MESSAGE}( +-)?\\n`),
    );
  });

  it('the library throws it typed, and an operator update is refused with it', async () => {
    const error = await rampflow.getJourney(externalId).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RampflowWorkflowEndedError);
    expect((error as RampflowWorkflowEndedError).end).toEqual({
      status: 'FAILED',
      type: 'InvalidStartInput',
      message: MESSAGE,
      fields: { issues: ISSUES },
    });

    const cancel = await rampflowCli('journey', 'cancel', externalId);
    expect(cancel).toEqual({
      code: 1,
      stdout: '',
      stderr: `rampflow: cancel refused by journey ${externalId}: it has already ended (FAILED, InvalidStartInput: ${MESSAGE})\n`,
    });
  });
});

describe('a journey that was terminated or timed out', () => {
  it("journey status and the partner API show Terminated, the operator's reason and the last stage", async () => {
    const handle = await h.startJourney({ offramp: TEST_OFFRAMP });
    const externalId = handle.workflowId.replace(/^customer\//, '');
    await h.waitForJourney(handle, (state) => state.stage === 'AWAITING_KYC');
    await handle.terminate('fraud review: closed by ops');

    const human = await rampflowCli('journey', 'status', externalId);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^journey ${externalId} was terminated: Terminated: fraud review: closed by ops\\n {2}last stage: [A-Z_]+\\n$`,
      ),
    );
    const json = await rampflowCli('journey', 'status', externalId, '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      externalId,
      status: 'TERMINATED',
      stage: expect.any(String),
      failure: { type: 'Terminated', message: 'fraud review: closed by ops' },
    });
    expect(await getJourney(externalId)).toEqual({
      status: 200,
      body: {
        externalId,
        status: 'TERMINATED',
        stage: expect.any(String),
        failure: { type: 'Terminated', message: 'fraud review: closed by ops' },
      },
    });
  });

  it('journey status shows WorkflowTimedOut, without a worker', async () => {
    const externalId = `timeout-${randomUUID()}`;
    // No worker polls this queue: the run times out before anything runs it.
    const handle = await h.client.workflow.start('customerJourney', {
      taskQueue: uniqueTaskQueue('nobody'),
      workflowId: journeyWorkflowId(externalId),
      args: [{ customer: { externalId, realName: 'Grace Hopper', email: 'grace@example.com' } }],
      workflowRunTimeout: '1 second',
    });
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const json = await rampflowCli('journey', 'status', externalId, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      externalId,
      status: 'TIMED_OUT',
      failure: { type: 'WorkflowTimedOut', message: 'Workflow execution timed out' },
    });
  });
});

describe('deposits and payouts that ended without completing', () => {
  it('deposit status shows the refused start input; payout status a termination', async () => {
    const depositId = `ended-${randomUUID()}`;
    const deposit = await h.client.workflow.start('depositLifecycle', {
      taskQueue: h.taskQueue,
      workflowId: depositWorkflowId(depositId),
      args: [{}],
    });
    await expect(deposit.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const depositStatus = await rampflowCli('deposit', 'status', depositId, '--json');
    expect(depositStatus.code).toBe(0);
    expect(JSON.parse(depositStatus.stdout)).toMatchObject({
      depositId,
      status: 'FAILED',
      failure: {
        type: 'InvalidStartInput',
        message: expect.stringMatching(/^invalid depositLifecycle input: /),
        issues: expect.any(Array),
      },
    });

    const reference = `ended-${randomUUID()}`;
    // On a queue no worker polls: its end is read without one.
    const payout = await h.client.workflow.start('payout', {
      taskQueue: uniqueTaskQueue('nobody'),
      workflowId: payoutWorkflowId(reference),
      args: [{}],
    });
    await payout.terminate('paid by hand');
    expect(await rampflowCli('payout', 'status', reference)).toEqual({
      code: 0,
      stderr: '',
      stdout: `payout ${reference} was terminated: Terminated: paid by hand\n`,
    });
  });
});
