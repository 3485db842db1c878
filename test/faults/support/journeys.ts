/**
 * Many journeys at once, started through the client library as a partner backend would, and driven
 * (by the partner's part, and by whatever the case adds to each round) until every one has completed
 * a deposit each way.
 */
import type { Client, Connection } from '@temporalio/client';
import { createRampflowClient, type RampflowClient } from '../../../client';
import { payloadKeysFromEnv } from '../../../codec';
import { journeyWorkflowId } from '../../../workflows/common/messages';
import type { JourneyTimings } from '../../../workflows/schemas';
import type { Partner, Ramps } from './partner';
import { pause } from './until';

export interface JourneyBatch {
  externalIds: string[];
  rampflow: RampflowClient;
}

export async function startJourneys(options: {
  connection: Connection;
  taskQueue: string;
  prefix: string;
  count: number;
  ramps: Ramps;
  timings: Partial<JourneyTimings>;
}): Promise<JourneyBatch> {
  const rampflow = await createRampflowClient({
    connection: options.connection,
    taskQueue: options.taskQueue,
    payloadKeys: payloadKeysFromEnv(),
  });
  const externalIds = Array.from({ length: options.count }, (_, index) => `${options.prefix}-${index}`);
  await Promise.all(
    externalIds.map((externalId) =>
      rampflow.startJourney({
        customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
        ...options.ramps,
        timings: options.timings,
      }),
    ),
  );
  return { externalIds, rampflow };
}

/** Deposit workflows that have finished, whatever their outcome (visibility; needs no worker). */
export async function finishedDeposits(client: Client): Promise<number> {
  const { count } = await client.workflow.count("WorkflowType = 'depositLifecycle' AND ExecutionStatus != 'Running'");
  return count;
}

/** Deposit workflows started so far (visibility; needs no worker). */
export async function startedDeposits(client: Client): Promise<number> {
  const { count } = await client.workflow.count("WorkflowType = 'depositLifecycle'");
  return count;
}

/** Journeys that are ACTIVE (visibility; needs no worker). */
export async function activeJourneys(client: Client): Promise<number> {
  const { count } = await client.workflow.count("WorkflowType = 'customerJourney' AND RampStage = 'ACTIVE'");
  return count;
}

/**
 * Plays rounds (the case's `round`, if any, then the partner's part) until as many deposit workflows
 * have finished as the journeys need (two each) and every journey is ACTIVE, or fails after
 * `timeoutMs` with where each journey stands. Deposits can finish before their journey is ACTIVE: a
 * journey still polling for its AUD whitelist when its worker is killed waits out that poll's timeout,
 * while the money (which needs only the service's whitelist) moves on. Visibility and the service may be unreachable for a while (a case stops them on purpose):
 * such a round counts as not done.
 */
export async function driveUntilDepositsFinish(options: {
  client: Client;
  batch: JourneyBatch;
  partner: Partner;
  timeoutMs: number;
  round?: () => Promise<void>;
}): Promise<void> {
  const { client, batch, partner } = options;
  const expected = batch.externalIds.length * 2;
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    await options.round?.();
    await partner.playOnce();
    const finished = await finishedDeposits(client).catch(() => 0);
    if (finished >= expected && (await activeJourneys(client).catch(() => 0)) === batch.externalIds.length) return;
    if (Date.now() > deadline)
      throw new Error(
        `the journeys did not finish ${expected} deposits within ${options.timeoutMs / 1000} s:\n${await describeJourneys(client, batch)}`,
      );
    await pause(500);
  }
}

/**
 * One line per journey: its stage, its deposits' stages, and the activities it is retrying with their
 * last failure (for failure messages: what a stuck journey waits on).
 */
export async function describeJourneys(client: Client, batch: JourneyBatch): Promise<string> {
  const lines = await Promise.all(
    batch.externalIds.map(async (externalId) => {
      try {
        const state = await batch.rampflow.getJourney(externalId);
        const deposits = [...state.deposits.open, ...state.deposits.recent]
          .map((deposit) => `${deposit.kind} ${deposit.stage}`)
          .join(', ');
        const retrying = await pendingActivities(client, journeyWorkflowId(externalId));
        return `${externalId}: ${state.stage} (${state.waitingFor})${state.attention ? ` attention: ${state.attention.reason}` : ''} [${deposits}]${retrying}`;
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
        const message = error instanceof Error ? error.message : String(error);
        return `${externalId}: no answer (${message}${cause})${await whyNoAnswer(client, journeyWorkflowId(externalId))}`;
      }
    }),
  );
  return lines.join('\n');
}

/**
 * Why a workflow did not answer its query: its workflow task's attempts, its history's length, its
 * activities retrying, and the last workflow task failure's cause (the message is sealed by the codec).
 */
async function whyNoAnswer(client: Client, workflowId: string): Promise<string> {
  try {
    const handle = client.workflow.getHandle(workflowId);
    const { raw, historyLength } = await handle.describe();
    const task = raw.pendingWorkflowTask;
    const events = (await handle.fetchHistory()).events ?? [];
    const failed = events.filter((event) => event.workflowTaskFailedEventAttributes);
    const last = failed.at(-1)?.workflowTaskFailedEventAttributes;
    const lastEvent = events.at(-1);
    const lastType = lastEvent ? Object.keys(lastEvent).find((key) => key.endsWith('EventAttributes')) : undefined;
    return [
      `\n    history ${historyLength} events, the last ${lastType ?? 'none'}`,
      task ? `; workflow task ${task.state ?? ''} attempt ${task.attempt ?? 1}` : '; no workflow task pending',
      failed.length > 0 ? `; ${failed.length} workflow task failures, the last cause ${last?.cause ?? 'unknown'}` : '',
      await pendingActivities(client, workflowId),
    ].join('');
  } catch (error) {
    return `\n    (describe failed: ${error instanceof Error ? error.message : String(error)})`;
  }
}

async function pendingActivities(client: Client, workflowId: string): Promise<string> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  return (raw.pendingActivities ?? [])
    .map((activity) => {
      const next = activity.nextAttemptScheduleTime?.seconds
        ? `, next in ${Math.round(Number(activity.nextAttemptScheduleTime.seconds) - Date.now() / 1000)} s`
        : '';
      return `\n    retrying ${activity.activityType?.name} (attempt ${activity.attempt}${next}): ${activity.lastFailure?.message ?? 'no failure yet'}`;
    })
    .join('');
}
