/**
 * One journeys run: N customers prepared, N journeys started at once, and each customer's two deposits
 * sent as soon as its journey is ACTIVE; finished when all 2N deposit workflows have completed.
 *
 * Completion is read cheaply: a visibility count every second while it runs, then one listing at the
 * end for every journey's start time and every deposit's close time (server clock for both). The
 * driver finds ACTIVE journeys the same way (a count every half second, a listing when it grew) and
 * asks each new one once for its account ids, so its own reaction time (up to about a second) is part
 * of every journey's time.
 */
import { type Client, ServiceError } from '@temporalio/client';
import type { RampflowClient } from '../../client';
import type { JourneyRequest } from '../../workflows/schemas';
import type { JourneyState } from '../../workflows/common/messages';
import { forEachLimited, sleep } from '../support/concurrency';
import type { RampflowStack } from '../support/rampflow-stack';
import { countWorkflows } from '../support/temporal';
import { listWorkflows } from '../support/visibility';
import { journeyRequest, prepareCustomer, sendDeposits } from './partner';

export interface JourneyRunOptions {
  count: number;
  /** Prefix of this run's externalIds, so its visibility queries see only its own workflows. */
  prefix: string;
  timings: JourneyRequest['timings'];
  /** The run is abandoned (and reported unfinished) after this long. */
  timeoutMs: number;
  /** Register the receiver with the sandbox (default true); false: every webhook is lost and only the polls move the journeys. */
  webhooks?: boolean;
  /** Create the customers before their journeys (default true); false: each journey signs its customer up itself. */
  prepared?: boolean;
  progress: (line: string) => void;
}

export interface JourneyRunResult {
  count: number;
  finished: boolean;
  /** First start to last deposit completed. */
  makespanMs: number;
  /** Per journey: its start to its second deposit's completion. */
  journeyMs: number[];
  /** API calls the service received during the run (customer preparation and simulation calls left out). */
  apiCalls: number;
  /**
   * Where a journey's time goes, per journey (ms): its start to the driver having sent its deposits
   * (signup: the journey's own work, its webhooks' ticks and polls, plus the driver's reaction), the
   * deposits sent to their workflows' starts (the deposit webhook's tick and the receiver), and those
   * starts to the last deposit closed (the deposit workflows' own work, their trade and payout webhooks).
   */
  phasesMs: { signup: number[]; depositEvent: number[]; depositRun: number[] };
  /** When the first journey was started, and the service's API call count then (in all and by path). */
  startedAt: number;
  apiCallsAtStart: number;
  apiCallsByPathAtStart: Map<string, number>;
}

/** Keeps the client's start calls and the driver's queries bounded, as a partner backend's would be. */
const START_CONCURRENCY = 32;
const DRIVER_CONCURRENCY = 8;

export async function runJourneys(
  stack: RampflowStack,
  rampflow: RampflowClient,
  options: JourneyRunOptions,
): Promise<JourneyRunResult> {
  const client: Client = rampflow.temporal;
  const externalIds = Array.from({ length: options.count }, (_, i) => `${options.prefix}${i}`);
  const ofRun = `RampExternalId STARTS_WITH '${options.prefix}'`;

  // Prepared while no receiver is registered: these customers' own events wait for the sandbox's
  // 10-minute retry, outside the run, and the journeys find them already approved.
  if (options.prepared !== false)
    await forEachLimited(externalIds, 16, (externalId) => prepareCustomer(stack.ramp, externalId));
  if (options.webhooks !== false) await stack.registerReceiver();
  const callsBefore = stack.requestLog.apiRequests();
  const callsByPathBefore = new Map(stack.requestLog.byPath);

  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const starting = forEachLimited(externalIds, START_CONCURRENCY, async (externalId) => {
    await rampflow.startJourney(journeyRequest(externalId, options.timings));
  });

  const depositsSentFor = new Set<string>();
  const depositsSentAt = new Map<string, number>();
  const sendDepositsToNewlyActive = async (): Promise<void> => {
    const activeQuery = `WorkflowType = 'customerJourney' AND RampStage = 'ACTIVE' AND ${ofRun}`;
    if ((await countWorkflows(client, activeQuery)) <= depositsSentFor.size) return;
    const fresh = (await listWorkflows(client, activeQuery))
      .map((w) => w.externalId!)
      .filter((id) => !depositsSentFor.has(id));
    await forEachLimited(fresh, DRIVER_CONCURRENCY, async (externalId) => {
      // A query waits for the journey's worker, which a loaded run keeps busy: one that times out is
      // asked again next round instead of ending the benchmark (a 1,000-journey cluster run did).
      const state: JourneyState | undefined = await rampflow.getJourney(externalId).catch((error: unknown) => {
        if (error instanceof ServiceError) return undefined;
        throw error;
      });
      if (state === undefined) return;
      const virtualAccountId = state.onramp?.virtualAccount?.id;
      const depositAddressId = state.offramp?.depositAddress?.id;
      if (!virtualAccountId || !depositAddressId)
        throw new Error(`journey ${externalId} is ACTIVE without its accounts`);
      await sendDeposits(stack.ramp, { virtualAccountId, depositAddressId });
      depositsSentFor.add(externalId);
      depositsSentAt.set(externalId, Date.now());
    });
  };

  const completedQuery = `WorkflowType = 'depositLifecycle' AND ExecutionStatus = 'Completed' AND ${ofRun}`;
  let completed = 0;
  let lastProgress = Date.now();
  while (completed < 2 * options.count && Date.now() < deadline) {
    for (const worker of stack.workers) worker.assertAlive();
    stack.receiver.assertAlive();
    await sendDepositsToNewlyActive();
    await sleep(500);
    completed = await countWorkflows(client, completedQuery);
    if (Date.now() - lastProgress > 10_000) {
      lastProgress = Date.now();
      const parked = await countWorkflows(client, `RampStage = 'NEEDS_ATTENTION' AND ${ofRun}`);
      options.progress(
        `${Math.round((Date.now() - started) / 1000)} s: ${depositsSentFor.size}/${options.count} journeys ACTIVE, ${completed}/${2 * options.count} deposits completed${parked ? `, ${parked} parked` : ''}`,
      );
    }
  }
  await starting;
  const apiCalls = stack.requestLog.apiRequests() - callsBefore;
  const finished = completed >= 2 * options.count;

  const journeys = await listWorkflows(client, `WorkflowType = 'customerJourney' AND ${ofRun}`);
  const deposits = await listWorkflows(client, completedQuery);
  const depositsOf = new Map<string, { completed: number; lastClose: number; lastStart: number }>();
  for (const deposit of deposits) {
    const seen = depositsOf.get(deposit.externalId!) ?? { completed: 0, lastClose: 0, lastStart: 0 };
    depositsOf.set(deposit.externalId!, {
      completed: seen.completed + 1,
      lastClose: Math.max(seen.lastClose, deposit.closeTime ?? Number.NaN),
      lastStart: Math.max(seen.lastStart, deposit.startTime),
    });
  }
  const journeyMs: number[] = [];
  const phasesMs: JourneyRunResult['phasesMs'] = { signup: [], depositEvent: [], depositRun: [] };
  let firstStart = Number.POSITIVE_INFINITY;
  let lastClose = 0;
  for (const journey of journeys) {
    firstStart = Math.min(firstStart, journey.startTime);
    const done = depositsOf.get(journey.externalId!);
    if (done === undefined || done.completed < 2) continue;
    lastClose = Math.max(lastClose, done.lastClose);
    journeyMs.push(done.lastClose - journey.startTime);
    // The driver's clock and the server's are this machine's one clock.
    const sentAt = depositsSentAt.get(journey.externalId!);
    if (sentAt !== undefined) {
      phasesMs.signup.push(sentAt - journey.startTime);
      phasesMs.depositEvent.push(done.lastStart - sentAt);
      phasesMs.depositRun.push(done.lastClose - done.lastStart);
    }
  }
  return {
    count: options.count,
    finished,
    makespanMs: journeyMs.length === 0 ? Number.NaN : lastClose - firstStart,
    journeyMs,
    phasesMs,
    apiCalls,
    startedAt: started,
    apiCallsAtStart: callsBefore,
    apiCallsByPathAtStart: callsByPathBefore,
  };
}
