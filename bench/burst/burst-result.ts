/** What one burst run measured (rampflow's or the deposit floor's), and the pieces both runs share. */
import type { Client } from '@temporalio/client';
import { sleep } from '../support/concurrency';
import { emptyShape, shapesSince, type HistoryShape } from '../support/history-shape';

/** Deposits paid at once, as a payroll run's client would: 8 calls in flight. */
export const BURST_CONCURRENCY = 8;
/** The sandbox's pace in the burst, as a new user runs it (`--autopilot-delay 0.2 --delivery-tick 1`). */
export const AUTOPILOT_STEP_MS = 200;
export const DELIVERY_TICK_MS = 1_000;
/** Seconds between progress lines. */
export const PROGRESS_EVERY_MS = 5_000;

export interface BurstResult {
  deposits: number;
  /** The first deposit sent to the last deposit workflow closed (visibility's close time). */
  spanMs: number;
  /** Each deposit workflow's start to its close. */
  depositRunMs: number[];
  /** Every deposit workflow's histories. */
  deposit: HistoryShape;
  /** The journey's histories (every run), less what it had at ACTIVE before the burst. */
  journey: HistoryShape;
  /** Every other workflow the burst caused, by type (ramp events that were not routed directly, say). */
  others: Map<string, HistoryShape>;
  /** CPU ms over the burst, by process: the Temporal server, the worker, and where present the receiver, PostgreSQL, this process (the sandbox and the driver). */
  cpuMs: { server: number; worker: number; receiver?: number; postgres?: number; driver?: number };
  /** Service calls during the burst by path (simulation endpoints and the deposits themselves left out); none for the floor. */
  callsByPath: Map<string, number>;
  /** The sandbox's webhook deliveries during the burst and the time they took in all (one customer's go out one after another); none for the floor. */
  deliveries?: { attempts: number; totalMs: number };
}

/** Splits per-type history readings into the deposits', the journey's and the rest. */
export function splitShapes(
  after: Map<string, HistoryShape>,
  before: Map<string, HistoryShape>,
  types: { deposit: string; journey: string },
): Pick<BurstResult, 'deposit' | 'journey' | 'others'> {
  const since = shapesSince(after, before);
  const others = new Map(
    [...since].filter(([type, shape]) => type !== types.deposit && type !== types.journey && shape.events > 0),
  );
  return {
    deposit: since.get(types.deposit) ?? emptyShape(),
    journey: since.get(types.journey) ?? emptyShape(),
    others,
  };
}

/** When the last workflow of a type closed (server clock), and each one's time from start to close. */
export async function closeTimes(
  client: Client,
  workflowType: string,
): Promise<{ lastClose: number; runMs: number[] }> {
  let lastClose = 0;
  const runMs: number[] = [];
  for await (const execution of client.workflow.list({
    query: `WorkflowType = '${workflowType}' AND ExecutionStatus = 'Completed'`,
    pageSize: 1000,
  })) {
    const closed = execution.closeTime?.getTime() ?? 0;
    lastClose = Math.max(lastClose, closed);
    runMs.push(closed - execution.startTime.getTime());
  }
  return { lastClose, runMs };
}

/**
 * Polls `check` every second until it says done, with a progress line every few seconds; throws at
 * the limit with the last line, so a burst that does not finish fails loudly.
 */
export async function untilDone(
  limitMs: number,
  check: () => Promise<{ done: boolean; line: string }>,
  progress: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  let lastProgress = started;
  for (;;) {
    const { done, line } = await check();
    if (done) return;
    if (Date.now() - started > limitMs)
      throw new Error(`the burst did not finish within ${Math.round(limitMs / 60_000)} minutes: ${line}`);
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      progress(`${Math.round((Date.now() - started) / 1000)} s: ${line}`);
    }
    await sleep(1_000);
  }
}
