/**
 * A customer's whole life: one journey and 10,000 deposits. Prints, at 100, 1,000 and 10,000
 * deposits, the size of the journey's query answer, of its last continue-as-new input, the largest
 * payload in any of its histories, and the history events it wrote per deposit. The goal is flat
 * lines: nothing the journey carries or answers grows with the customer's history.
 *
 * The journey is real (worker and receiver as child processes, the sandbox on autopilot, webhooks
 * flowing), and so are its first REAL_DEPOSITS deposits: sent through POST /deposit/mock, each run by
 * its own deposit workflow to COMPLETED. Beyond those, the deposits' progress reports are offered to
 * the journey as their workflows offer them (by update, client/journey-report-sender.ts; each deposit walks RECEIVED ... COMPLETED and reports the
 * stages the workflow's own rule, `isNewsForJourney`, says the journey hears of, each with the stage
 * before), from this process: the journey's side of a deposit is exactly those reports, and 10,000
 * real deposit workflows would take the embedded dev server hours on 2 cores. Counts, not timings:
 * they do not depend on the machine.
 */
import type { Client } from '@temporalio/client';
import { createRampflowClient } from '../client';
import { JourneyReportSender } from '../client/journey-report-sender';
import { isNewsForJourney } from '../workflows/common/messages';
import {
  depositReportKey,
  type DepositStage,
  type DepositSummary,
  type JourneyState,
  journeyStateQuery,
  journeyWorkflowId,
} from '../workflows/common/messages';
import { journeyRequest, prepareCustomer } from './journeys/partner';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { forEachLimited, pacer, sleep } from './support/concurrency';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

const CHECKPOINTS = [100, 1_000, 10_000];
const QUICK_CHECKPOINTS = [20, 200, 1_000];
const REAL_DEPOSITS = 20;
/** Deposits whose reports are in flight at once (each deposit's own reports stay in order). */
const CONCURRENT_DEPOSITS = 16;
/**
 * Reports a second to the one journey: a deposit opening or ending every 50 ms, far beyond what one
 * customer does (a real deposit takes minutes from RECEIVED to COMPLETED). Unpaced, this process
 * sent about 450 signals a second when reports were signals: more than the server buffers for one
 * workflow task (100 events), so the journey's tasks were failed and replayed until the worker
 * crashed (bench/README.md). Reports by update no longer do (docs/guarantees/signal-storms.md); the
 * pace is kept so the figures compare with earlier runs.
 */
const REPORTS_PER_SECOND = 20;

const ONRAMP_STAGES: DepositStage[] = ['RECEIVED', 'CONFIRMED', 'TRADE_CREATED', 'TRADE_SETTLED', 'COMPLETED'];
const OFFRAMP_STAGES: DepositStage[] = [
  'RECEIVED',
  'CONFIRMED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  'PAYMENT_SETTLED',
  'COMPLETED',
];

interface Sizes {
  deposits: number;
  queryAnswerBytes: number;
  continueAsNewInputBytes: number;
  largestPayloadBytes: number;
  historyEvents: number;
  runs: number;
}

export async function benchLifetime(options: BenchOptions): Promise<Figure[]> {
  const checkpoints = options.quick ? QUICK_CHECKPOINTS : CHECKPOINTS;
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, { name: 'lifetime', deliveryTickSeconds: 1 });
    try {
      await stack.registerReceiver();
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      const externalId = 'lifetime-customer';
      await prepareCustomer(stack.ramp, externalId);
      await rampflow.startJourney(journeyRequest(externalId, { pollIntervalSeconds: 10 }));
      const handle = temporal.client.workflow.getHandle(journeyWorkflowId(externalId));
      options.progress('lifetime: one journey to ACTIVE');
      const active = await waitFor(handle, (state) => state.stage === 'ACTIVE', 120_000);
      const virtualAccountId = active.onramp!.virtualAccount!.id;
      const depositAddressId = active.offramp!.depositAddress!.id;

      options.progress(
        `lifetime: ${REAL_DEPOSITS} real deposits through /deposit/mock, each to COMPLETED by its own workflow`,
      );
      for (let i = 0; i < REAL_DEPOSITS; i += 1) {
        if (i % 2 === 0)
          await stack.ramp.deposits.mock({
            virtualAccountId,
            amount: '100.00',
            currency: 'AUD',
            sender: { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' },
          });
        else
          await stack.ramp.deposits.mock({
            depositAddressId,
            amount: '50.00',
            currency: 'USDT',
            sender: { address: '0x000000000000000000000000000000000000dEaD', network: 'ETH' },
          });
      }
      await waitFor(handle, (state) => (state.deposits.byStage.COMPLETED ?? 0) >= REAL_DEPOSITS, 300_000);
      const realSizes = await measure(temporal.client, handle.workflowId, REAL_DEPOSITS);

      const sender = new JourneyReportSender(temporal.client);
      const sizes: Sizes[] = [];
      let sent = REAL_DEPOSITS;
      for (const checkpoint of checkpoints) {
        const started = Date.now();
        const batch = Array.from({ length: checkpoint - sent }, (_, offset) => sent + offset);
        let done = 0;
        const pace = pacer(REPORTS_PER_SECOND);
        await forEachLimited(batch, CONCURRENT_DEPOSITS, async (n) => {
          await reportLikeADeposit(sender, handle.workflowId, n, pace);
          done += 1;
          if (done % 500 === 0)
            options.progress(`  ${sent + done} deposits reported (${Math.round((Date.now() - started) / 1000)} s)`);
        });
        sent = checkpoint;
        await waitFor(handle, (state) => (state.deposits.byStage.COMPLETED ?? 0) >= checkpoint, 300_000);
        sizes.push(await measure(temporal.client, handle.workflowId, checkpoint));
        options.progress(`lifetime: ${checkpoint} deposits: ${JSON.stringify(sizes.at(-1))}`);
      }
      return figures(realSizes, sizes);
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}

/** The reports a deposit's workflow offers its journey over its life, in order (happy path), each offered again while refused. */
async function reportLikeADeposit(
  sender: JourneyReportSender,
  journeyId: string,
  n: number,
  pace: { turn(): Promise<void> },
): Promise<void> {
  const offramp = n % 2 === 1;
  const stages = offramp ? OFFRAMP_STAGES : ONRAMP_STAGES;
  const base: Omit<DepositSummary, 'stage'> = offramp
    ? { depositId: `synthetic-${n}`, kind: 'OFFRAMP', amount: '50.00', currency: 'USDT' }
    : { depositId: `synthetic-${n}`, kind: 'ONRAMP', amount: '100.00', currency: 'AUD' };
  let previousStage: DepositStage | undefined;
  for (const stage of stages) {
    if (!isNewsForJourney(previousStage, stage, false)) continue;
    const summary: DepositSummary = {
      ...base,
      stage,
      ...(stage === 'TRADE_CREATED' || stage === 'TRADE_SETTLED' || stage === 'PAYMENT_SETTLED' || stage === 'COMPLETED'
        ? { tradeId: `trade-${n}` }
        : {}),
    };
    await pace.turn();
    const report = {
      key: depositReportKey(base.depositId, 'bench', stages.indexOf(stage)),
      progress: { summary, ...(previousStage ? { previousStage } : {}) },
    };
    for (
      let outcome = await sender.offer(journeyId, report);
      outcome !== 'taken';
      outcome = await sender.offer(journeyId, report)
    ) {
      if (outcome === 'journey-gone') throw new Error('the journey ended during the benchmark');
      await sleep(500);
    }
    previousStage = stage;
  }
}

async function waitFor(
  handle: ReturnType<Client['workflow']['getHandle']>,
  accept: (state: JourneyState) => boolean,
  timeoutMs: number,
): Promise<JourneyState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query(journeyStateQuery).catch(() => undefined);
    if (state && accept(state)) return state;
    if (Date.now() > deadline)
      throw new Error(
        `the journey did not get there within ${timeoutMs / 1000} s; last state: ${JSON.stringify(state)}`,
      );
    await sleep(250);
  }
}

/** Sizes of the journey's query answer and of everything in its histories (every run so far). */
async function measure(client: Client, workflowId: string, deposits: number): Promise<Sizes> {
  const answer = await client.workflow.getHandle(workflowId).query(journeyStateQuery);
  const runIds: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runIds.push(run.runId);
  let historyEvents = 0;
  let largestPayloadBytes = 0;
  let continueAsNewInputBytes = 0;
  let lastContinuedAt = 0;
  for (const runId of runIds) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    for (const event of history.events ?? []) {
      historyEvents += 1;
      for (const size of payloadSizes(event)) largestPayloadBytes = Math.max(largestPayloadBytes, size);
      const continued = event.workflowExecutionContinuedAsNewEventAttributes;
      const at = Number(event.eventTime?.seconds ?? 0);
      if (continued && at >= lastContinuedAt) {
        lastContinuedAt = at;
        continueAsNewInputBytes = (continued.input?.payloads ?? []).reduce(
          (sum, payload) => sum + (payload.data?.length ?? 0),
          0,
        );
      }
    }
  }
  return {
    deposits,
    queryAnswerBytes: JSON.stringify(answer).length,
    continueAsNewInputBytes,
    largestPayloadBytes,
    historyEvents,
    runs: runIds.length,
  };
}

/** The data sizes of every payload an event carries, wherever it sits in the event. */
function payloadSizes(value: unknown, sizes: number[] = []): number[] {
  if (value === null || typeof value !== 'object') return sizes;
  if (value instanceof Uint8Array) return sizes;
  const payloads = (value as { payloads?: unknown }).payloads;
  if (Array.isArray(payloads))
    for (const payload of payloads) sizes.push((payload as { data?: Uint8Array }).data?.length ?? 0);
  for (const child of Object.values(value)) payloadSizes(child, sizes);
  return sizes;
}

function figures(real: Sizes, sizes: Sizes[]): Figure[] {
  const method = (at: Sizes) =>
    `one journey, ${REAL_DEPOSITS} real deposits then the rest's progress reports offered as their workflows offer them; at ${at.deposits.toLocaleString('en-US')} deposits, over ${at.runs} run(s)`;
  const rows: Figure[] = [
    {
      name: `lifetime, ${real.deposits} real deposits: journey history events per deposit`,
      value: real.historyEvents / real.deposits,
      unit: 'events',
      method: `${REAL_DEPOSITS} deposits by /deposit/mock, webhooks flowing, each deposit's workflow reporting to the journey; journey's own history only`,
    },
  ];
  for (const at of sizes) {
    const n = at.deposits.toLocaleString('en-US');
    rows.push(
      {
        name: `lifetime, ${n} deposits: journey query answer`,
        value: at.queryAnswerBytes,
        unit: 'bytes',
        method: method(at),
      },
      {
        name: `lifetime, ${n} deposits: last continue-as-new input`,
        value: at.continueAsNewInputBytes,
        unit: 'bytes',
        method: method(at),
      },
      {
        name: `lifetime, ${n} deposits: largest payload in the journey's histories`,
        value: at.largestPayloadBytes,
        unit: 'bytes',
        method: method(at),
      },
      {
        name: `lifetime, ${n} deposits: journey history events per deposit`,
        value: at.historyEvents / at.deposits,
        unit: 'events',
        method: method(at),
      },
    );
  }
  return rows;
}
