/**
 * `npm run bench -- rate`: a service that allows fewer calls than RAMP_MAX_CALLS_PER_SECOND (issue 36).
 * Three worker processes with RAMP_MAX_CALLS_PER_SECOND=6 run 30 signups to the end (each journey
 * signs its customer up, sets up both ramps, and both its deposits are paid out) against a sandbox on
 * autopilot that answers 429 (Retry-After: 2) to any call arriving when 3 already arrived in the last
 * second, refused calls counting (sandbox/faults.ts), as many gateways do. From the sandbox's own
 * request log: how many of rampflow's calls were refused, and how many it had accepted a second
 * against the 3 the service allows (workers/partner-rate.ts brings the partner's rate down to it).
 */
import { createRampflowClient } from '../client';
import { runJourneys } from './journeys/run-journeys';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

const SIGNUPS = 30;
const QUICK_SIGNUPS = 10;
const WORKERS = 3;
/** Every worker's RAMP_MAX_CALLS_PER_SECOND. */
const CONFIGURED = 6;
/** What the service allows: calls a second, sliding, refused ones counting. */
const ALLOWED = 3;
const RETRY_AFTER_SECONDS = 2;
/** Webhooks drive the journeys; polls are their fallback. */
const TIMINGS = { pollIntervalSeconds: 10 };
const RUN_LIMIT_MS = 30 * 60_000;

export async function benchRate(options: BenchOptions): Promise<Figure[]> {
  const count = options.quick ? QUICK_SIGNUPS : SIGNUPS;
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, {
      name: 'rate',
      deliveryTickSeconds: 1,
      workers: WORKERS,
      workerEnv: { RAMP_MAX_CALLS_PER_SECOND: String(CONFIGURED) },
      rateLimit: { callsPerSecond: ALLOWED, retryAfterSeconds: RETRY_AFTER_SECONDS },
    });
    try {
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      const refusedBefore = stack.requestLog.refused();
      const run = await runJourneys(stack, rampflow, {
        count,
        prefix: `rate-${Date.now()}-`,
        timings: TIMINGS,
        timeoutMs: RUN_LIMIT_MS,
        prepared: false,
        progress: options.progress,
      });
      if (!run.finished) throw new Error(`the ${count} signups did not finish within ${RUN_LIMIT_MS / 60_000} minutes`);
      const calls = run.apiCalls;
      const refused = stack.requestLog.refused() - refusedBefore;
      const seconds = run.makespanMs / 1000;
      const acceptedPerSecond = (calls - refused) / seconds;
      const busiestMinute = stack.requestLog.busiestAccepted(60_000);
      const setup = `${count} signups to both deposits paid out, ${WORKERS} worker processes at RAMP_MAX_CALLS_PER_SECOND=${CONFIGURED}, a service allowing ${ALLOWED}/s (429, Retry-After: ${RETRY_AFTER_SECONDS}, refused calls counting)`;
      options.progress(
        `${calls} calls in ${Math.round(seconds)} s, ${refused} refused, busiest second ${stack.requestLog.busiestSecond()}`,
      );
      return [
        {
          name: 'rate: calls to the service',
          value: calls,
          unit: 'calls',
          method: `${setup}; the sandbox's request log, its simulation endpoints and simulated payments left out`,
        },
        {
          name: 'rate: calls refused (429)',
          value: (100 * refused) / calls,
          unit: '%',
          method: `of those calls, the ones the service refused (${refused})`,
          target: '< 10',
          met: refused / calls < 0.1,
        },
        {
          name: 'rate: accepted calls a second, of what the service allows',
          value: (100 * acceptedPerSecond) / ALLOWED,
          unit: '%',
          method: `accepted calls (${calls - refused}) over the run's ${Math.round(seconds)} s (first start to last deposit paid out), against ${ALLOWED}/s; the run also waits on webhooks, autopilot steps and the driver, and its tail has few calls to make, so this is a floor`,
        },
        {
          name: 'rate: accepted calls a second in the busiest minute, of what the service allows',
          value: (100 * busiestMinute) / 60 / ALLOWED,
          unit: '%',
          method: `the most calls the service accepted within any 60 s of the run (${busiestMinute}), a second, against ${ALLOWED}/s: what rampflow gets while it has calls to make`,
          target: '>= 80',
          met: busiestMinute / 60 / ALLOWED >= 0.8,
        },
      ];
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}
