/**
 * The full floor: Temporal's own cost of the orchestration a rampflow journey has today, with nothing
 * else in it. The first floor (workflows.ts) keeps the shape the journey had when issue 25 drew its
 * target (8 activities, reports by signal); since then the trust rules, the signal-storm design and
 * the operators' views added Temporal work to every journey, and this floor has that work too, counted
 * from the histories of `npm run bench -- cost` (bench/README.md, "Against a floor with today's
 * orchestration"). Per journey and its two deposits:
 *
 * - 22 activities: the journey's 8 service calls (customer, both exits, both flows, both account
 *   reads, the AUD whitelist) and its 6 partner-event recordings (by activity since 1.4, one at a
 *   time beside the business, as the outbox records; rampflow's journeys record about 7), and, in
 *   each deposit, its own read of the deposit, the trade read and its two reports, each an activity
 *   that offers the report to the journey by update;
 * - 4 updates on the journey (the reports) and 2 local activities (each deposit's look-up of its
 *   journey);
 * - 13 search-attribute upserts (each stage shown; since 1.0 no workflow records a patch marker),
 *   one memo upsert per deposit, and a deadline timer on two waits, cancelled by the event.
 *
 * The activities and local activities do nothing but the reports' updates; payloads are plain (no
 * codec): what is left between this floor and rampflow is rampflow's own work.
 */
import {
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  ParentClosePolicy,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  CancellationScope,
  sleep,
} from '@temporalio/workflow';
import type { FloorActivities } from './activities';
import { depositWebhooks, FLOOR_JOURNEY_WEBHOOKS, floorEventSignal, fullFloorReportUpdate } from './messages';

const { step, report } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const { step: localStep } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** A stage shown as rampflow shows it: the stage and since when, in one upsert. */
function show(stage: string, more: Record<string, string[]> = {}): void {
  upsertSearchAttributes({ RampStage: [stage], RampStageSince: [new Date()], ...more });
}

/**
 * Waits for webhooks by name. A wait `withDeadline` starts a deadline timer and cancels it when they
 * have come, as rampflow's waits for the accounts and for an offramp's settlement do (1.7 timers a
 * journey in rampflow's histories of the cost run, 0.9 in this floor's: a timer cancelled in the task
 * that started it never reaches the history).
 */
function webhooks(): (events: string[], withDeadline?: boolean) => Promise<void> {
  const received = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  return async (events, withDeadline = false) => {
    const arrived = () => events.every((event) => received.has(event));
    if (!withDeadline) return condition(arrived);
    await CancellationScope.cancellable(async () => {
      const deadline = CancellationScope.current();
      const timer = sleep('1 hour').catch(() => undefined);
      await condition(arrived);
      deadline.cancel();
      await timer;
    });
  };
}

export async function fullFloorDeposit(journeyId: string, kind: 'ONRAMP' | 'OFFRAMP'): Promise<void> {
  const depositId = workflowInfo().workflowId;
  const arrived = webhooks();
  const [first, second, created, settled, ...rest] = depositWebhooks(kind);
  await arrived([first!]);
  await localStep(); // the look-up of its journey
  await step(); // its own read of the deposit
  show('RECEIVED', { RampCustomerId: [journeyId], RampExternalId: [journeyId] });
  upsertMemo({ kind, amount: '100', currency: 'AUD' });
  await report({ journeyId, depositId, stage: 'RECEIVED' });
  await arrived([second!]);
  show('CONFIRMED');
  await arrived([created!]);
  await step(); // the trade read
  show('TRADE_CREATED');
  await arrived([settled!, ...rest], kind === 'OFFRAMP');
  show('TRADE_SETTLED');
  show('COMPLETED');
  await report({ journeyId, depositId, stage: 'COMPLETED' });
}

/**
 * Partner events recorded as the outbox records them: one activity at a time, beside the business
 * (nothing waits for a recording but the workflow's end).
 */
function recorder(): { record(): void; drained(): Promise<void> } {
  let recording: Promise<void> = Promise.resolve();
  return {
    record() {
      recording = recording.then(() => step());
    },
    drained: () => recording,
  };
}

export async function fullFloorJourney(): Promise<void> {
  const journeyId = workflowInfo().workflowId;
  const events = recorder();
  const completed = new Set<string>();
  const arrived = webhooks();
  let reports = 0;
  setHandler(fullFloorReportUpdate, ({ depositId, stage }) => {
    reports += 1;
    if (stage === 'COMPLETED') completed.add(depositId);
  });
  show('CREATING_CUSTOMER', { RampExternalId: [journeyId] });
  await step(); // the customer
  show('SETTING_UP_RAMPS', { RampCustomerId: [journeyId] });
  events.record(); // the partner event of the approval
  await step(); // the crypto address
  await step(); // the bank account
  await step(); // the onramp
  await step(); // the offramp
  show('AWAITING_ACCOUNTS');
  await arrived([...FLOOR_JOURNEY_WEBHOOKS], true);
  await step(); // the virtual account's read
  await step(); // the deposit address's read
  await step(); // the AUD whitelist
  show('ACTIVE');
  events.record(); // the partner event of the accounts and ACTIVE

  for (const kind of ['ONRAMP', 'OFFRAMP'] as const) {
    const deposit = await startChild(fullFloorDeposit, {
      workflowId: `${journeyId}/deposit-${kind}`,
      args: [journeyId, kind],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    for (const event of depositWebhooks(kind)) await deposit.signal(floorEventSignal, event);
  }
  // Each report is news the journey records as a partner event.
  for (let recorded = 0; recorded < 4; recorded++) {
    await condition(() => reports > recorded);
    events.record();
  }
  await condition(() => completed.size === 2);
  await events.drained();
}
