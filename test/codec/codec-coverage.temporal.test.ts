/**
 * Which parts of a workflow's data the payload codec seals on TS SDK 1.24 and the dev server of
 * Temporal CLI 1.5.1, found by reading histories raw. The rule it backs (README, "Customer data in
 * Temporal"): only ids and stages go where the codec does not reach (workflow IDs, search attributes).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFromEnv, ENCRYPTED_ENCODING } from '../../codec';
import { RampExternalId } from '../../observability/search-attributes';
import { readableText } from '../support/raw-history';
import { connectClient, connectWorker, temporalAddress, uniqueTaskQueue } from '../support/temporal';
import { coverageActivities } from './fixtures/coverage-activities';
import { echoUpdate, peekQuery, pokeSignal, type codecCoverage } from './fixtures/coverage-workflow';

const taskQueue = uniqueTaskQueue('codec-coverage');
let encrypted: { client: Client; close: () => Promise<void> };
let raw: Connection;
let rawClient: Client;
let workerConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  encrypted = await connectClient();
  raw = await Connection.connect({ address: temporalAddress() });
  rawClient = new Client({ connection: raw });
  workerConnection = await connectWorker();
  worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowsPath: join(__dirname, 'fixtures', 'coverage-workflow.ts'),
    activities: coverageActivities,
    dataConverter: dataConverterFromEnv(),
  });
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await workerConnection.close();
  await raw.close();
  await encrypted.close();
});

async function runCoverage(ending: 'complete' | 'fail') {
  const secret = `secret-${randomUUID()}`;
  const marker = `id-${randomUUID()}`;
  const handle = await encrypted.client.workflow.start<typeof codecCoverage>('codecCoverage', {
    taskQueue,
    workflowId: `coverage/${marker}`,
    args: [{ secret }],
    memo: { startMemo: `start memo ${secret}` },
    staticSummary: `static summary ${secret}`,
    staticDetails: `static details ${secret}`,
    typedSearchAttributes: [{ key: RampExternalId, value: `sa-${marker}` }],
  });
  expect(await handle.executeUpdate(echoUpdate, { args: [`update ${secret}`] })).toBe(`echo update ${secret}`);
  expect(await handle.query(peekQuery)).toBe(`peek ${secret}`);
  await handle.signal(pokeSignal, ending === 'fail' ? 'fail' : `signal ${secret}`);
  return { handle, secret, marker };
}

describe('what the payload codec covers', () => {
  it('seals input, result, signals, updates, memo, static summary and details, timer and activity summaries, activity input and result', async () => {
    const { handle, secret, marker } = await runCoverage('complete');
    expect(await handle.result()).toBe(`result ${secret}`);
    const history = await rawClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const text = readableText(history);
    expect(text).not.toContain(secret);
    // It did get there: a client with the key reads every part back.
    expect(readableText(await handle.fetchHistory())).toContain(ENCRYPTED_ENCODING);
    const described = await handle.describe();
    expect(await described.staticSummary()).toBe(`static summary ${secret}`);
    expect(described.memo).toEqual({ startMemo: `start memo ${secret}`, note: `memo ${secret}` });
    const events = history.events ?? [];
    const timer = events.find((event) => event.timerStartedEventAttributes);
    const activity = events.find((event) => event.activityTaskScheduledEventAttributes);
    expect(readableText(timer?.userMetadata)).toContain(ENCRYPTED_ENCODING);
    expect(readableText(activity?.userMetadata)).toContain(ENCRYPTED_ENCODING);

    // Not covered: the workflow ID and search attributes are plain for everyone.
    expect(text).toContain(`coverage/${marker}`);
    expect(text).toContain(`sa-${marker}`);
    // What the Web UI's list and detail pages get from the server: memo and summary sealed, search attributes plain.
    const rawDescribe = await raw.workflowService.describeWorkflowExecution({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
    });
    expect(readableText(rawDescribe.workflowExecutionInfo?.searchAttributes)).toContain(`sa-${marker}`);
    expect(readableText(rawDescribe.workflowExecutionInfo?.memo)).toContain(ENCRYPTED_ENCODING);
    expect(readableText(rawDescribe)).not.toContain(secret);
  });

  it('seals query answers, current details included (the Web UI reads them with a query)', async () => {
    const { handle, secret } = await runCoverage('complete');
    for (const queryType of ['peek', '__temporal_workflow_metadata']) {
      const answer = await raw.workflowService.queryWorkflow({
        namespace: 'default',
        execution: { workflowId: handle.workflowId },
        query: { queryType },
      });
      const text = readableText(answer.queryResult);
      expect(text, queryType).toContain(ENCRYPTED_ENCODING);
      expect(text, queryType).not.toContain(secret);
    }
    const { currentDetails } = await encrypted.client.workflow
      .getHandle(handle.workflowId)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toBe(`current details ${secret}`);
    await handle.result();
  });

  it('seals failure messages and stack traces (encodeCommonAttributes)', async () => {
    const { handle, secret } = await runCoverage('fail');
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toBe(`failure message ${secret}`);
    const history = await rawClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const failed = history.events?.find((event) => event.workflowExecutionFailedEventAttributes);
    expect(failed?.workflowExecutionFailedEventAttributes?.failure?.message).toBe('Encoded failure');
    expect(readableText(history)).not.toContain(secret);
  });
});
