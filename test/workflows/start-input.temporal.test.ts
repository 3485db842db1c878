/**
 * A journey started the way a new user of another language starts it, without rampflow's client: the
 * `temporal` CLI, by type name on the task queue, with JSON input. The journey checks its own input:
 * valid minimal input (no timings) runs with the production defaults; bad input fails the workflow at
 * once, naming the field, without a workflow task retried and without any call to the service.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxRequestLog } from '../../bench/support/sandbox-request-log';
import { requireTemporalCli } from '../../dev/temporal-cli';
import { journeyWorkflowId } from '../../workflows/common/messages';
import { INVALID_START_INPUT } from '../../workflows/common/checks';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { run } from '../support/run';
import { temporalAddress } from '../support/temporal';

const EventType = temporal.api.enums.v1.EventType;

let h: JourneyHarness;
let cli: string;
const requests = new SandboxRequestLog();

beforeAll(async () => {
  cli = (await requireTemporalCli()).path;
  h = await startJourneyHarness({ logger: requests.logger });
});
afterAll(async () => {
  await h?.close();
});

/** `temporal workflow start --type customerJourney ...`, as the issue's new user typed it. */
async function startWithCli(workflowId: string, input: unknown): Promise<WorkflowHandle> {
  const result = await run(cli, [
    'workflow',
    'start',
    '--address',
    temporalAddress(),
    '--task-queue',
    h.taskQueue,
    '--type',
    'customerJourney',
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify(input),
  ]);
  expect(result.code, result.stderr).toBe(0);
  return h.client.workflow.getHandle(workflowId);
}

async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const error: unknown = await handle.result().then(
    () => undefined,
    (failed: unknown) => failed,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

/** The run failed in its first workflow task: no task failed and retried, no activity, no timer. */
async function expectFailedAtFirstTask(handle: WorkflowHandle): Promise<void> {
  const types = ((await handle.fetchHistory()).events ?? []).map((event) => event.eventType);
  expect(types).not.toContain(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
  expect(types).not.toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  expect(types).not.toContain(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES);
  expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toHaveLength(1);
  expect(types.at(-1)).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
}

describe('a journey started with the temporal CLI', () => {
  it('fails at once, naming the field, when customer.externalId is missing', async () => {
    const handle = await startWithCli('customer/cli-no-external-id', { customer: { realName: 'X' } });
    const failure = await failureOf(handle);
    expect(failure.type).toBe(INVALID_START_INPUT);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('customer.externalId');
    expect(failure.message).toContain('customer.email');
    expect(failure.details).toEqual([
      {
        issues: [
          { path: 'customer.externalId', message: 'required' },
          { path: 'customer.email', message: 'required' },
        ],
      },
    ]);
    await expectFailedAtFirstTask(handle);
  });

  it('fails at once, naming the field, when a field has the wrong type', async () => {
    const handle = await startWithCli(journeyWorkflowId('cli-wrong-type'), {
      customer: { externalId: 'cli-wrong-type', realName: 'Y Z', email: 'y@example.com' },
      timings: { kycDeadlineSeconds: '30 days' },
    });
    const failure = await failureOf(handle);
    expect(failure.type).toBe(INVALID_START_INPUT);
    expect(failure.message).toBe('invalid customerJourney input: timings.kycDeadlineSeconds: must be number');
    await expectFailedAtFirstTask(handle);
  });

  it('fails at once when the workflow ID is not customer/<externalId>', async () => {
    const handle = await startWithCli('customer/someone-else', {
      customer: { externalId: 'cli-wrong-id', realName: 'Y Z', email: 'y@example.com' },
    });
    const failure = await failureOf(handle);
    expect(failure.message).toContain('must run as customer/cli-wrong-id');
    await expectFailedAtFirstTask(handle);
  });

  it('made no call to the service for any of the bad starts', () => {
    expect(requests.apiRequests()).toBe(0);
  });

  it('runs valid minimal input (no timings) with the production defaults, up to the KYC wait', async () => {
    const handle = await startWithCli(journeyWorkflowId('cli-good-1'), {
      customer: { externalId: 'cli-good-1', realName: 'Y Z', email: 'y@example.com' },
    });
    const state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    expect(state.customer.id).toBeTruthy();
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.map((event) => event.eventType)).not.toContain(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
    expect(requests.apiRequests()).toBeGreaterThan(0);
  });
});
