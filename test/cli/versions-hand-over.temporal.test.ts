/**
 * `rampflow versions --hand-over --to-task-queue <queue>` as an operator runs it: a child process
 * against the shared dev server, the harness's worker on its own task queue (TEMPORAL_TASK_QUEUE, the
 * queue the journeys leave) and the sandbox as the service. No worker polls the target queue here: where
 * a journey goes on after the hand-over is test/workflows/hand-over.temporal.test.ts's business.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkReport } from '../../client';
import type { customerJourney } from '../../workflows';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until } from '../support/until';
import type { WorkflowHandle } from '@temporalio/client';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h?.close();
});

const rampflow = (...args: string[]): Promise<RunResult> =>
  runRampflow(['versions', ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });

/** Success, with nothing on stderr but progress lines (printed only for runs longer than a second). */
function expectOk(result: RunResult): void {
  expect(result.stderr).toMatch(/^(journey hand over( \(dry run\))?: \d+ of \d+ \(.*\)\n)*$/);
  expect(result.code).toBe(0);
}

/** The `handOver` signals in the journey's history: a signal the CLI sent is recorded before the CLI returns. */
async function handOverSignals(handle: WorkflowHandle<typeof customerJourney>, runId: string): Promise<number> {
  const { events } = await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
  return (events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'handOver')
    .length;
}

describe('rampflow versions --hand-over', () => {
  it('lists the running journeys with --dry-run and changes nothing; without it, moves them to the target queue', async () => {
    const handle = await h.startJourney({});
    const atKyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    const { runId } = await handle.describe();
    const target = `${h.taskQueue}-v1`;
    await until(
      'visibility to list the journey',
      async () => {
        const query = `WorkflowType = 'customerJourney' AND ExecutionStatus = 'Running' AND TaskQueue = '${h.taskQueue}'`;
        return (await h.client.workflow.count(query)).count === 1 ? true : undefined;
      },
      30_000,
    );

    const dry = await rampflow('--hand-over', '--to-task-queue', target, '--dry-run');
    expectOk(dry);
    expect(dry.stdout).toBe(
      `dry run: would hand over 1 of 1 journey running on ${h.taskQueue} to ${target}; nothing was changed\n  ${atKyc.externalId}\n`,
    );
    expect(await handOverSignals(handle, runId)).toBe(0);
    expect((await handle.describe()).runId).toBe(runId);

    const moved = await rampflow('--hand-over', '--to-task-queue', target, '--concurrency', '2', '--json');
    expectOk(moved);
    expect(JSON.parse(moved.stdout) as BulkReport).toMatchObject({ dryRun: false, listed: 1, done: 1, failed: 0 });
    expect(await handOverSignals(handle, runId)).toBe(1);
    const next = await until(
      'the journey to continue as new',
      async () => {
        const latest = await handle.describe();
        return latest.runId === runId ? undefined : latest;
      },
      60_000,
    );
    expect(next.taskQueue).toBe(target);
    await handle.terminate('test over');
  });

  it('refuses a target the journeys would ignore, and flags that need each other', async () => {
    const own = await rampflow('--hand-over', '--to-task-queue', h.taskQueue);
    expect(own).toMatchObject({ code: 1, stdout: '' });
    expect(own.stderr).toBe("rampflow: taskQueue: the journey's own task queue\n");
    expect(await rampflow('--hand-over')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: --hand-over needs --to-task-queue <queue>\n',
    });
    expect(await rampflow('--to-task-queue', 'rampflow-v1')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: --to-task-queue needs --hand-over\n',
    });
    expect(await rampflow('--concurrency', '4')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: --concurrency needs --hand-over\n',
    });
    const tooMany = await rampflow('--hand-over', '--to-task-queue', 'rampflow-v1', '--concurrency', '500');
    expect(tooMany).toMatchObject({ code: 1, stdout: '' });
    expect(tooMany.stderr).toContain('must be a whole number from 1 to 100');
  });
});
