/**
 * Polling cost: the service API calls rampflow makes per journey-hour, when webhooks flow and when
 * every one of them is lost (the polls alone move the journeys), with production's timings scaled
 * down by TIME_SCALE so that hours pass in seconds: the journeys' poll intervals, the service's
 * pace (each autopilot step) and its webhook tick all shrink by the same factor.
 */
import { createRampflowClient } from '../client';
import { runJourneys } from './journeys/run-journeys';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { sleep } from './support/concurrency';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

/** One real second stands for 300 production seconds (5 minutes). */
const TIME_SCALE = 300;
/** Production defaults (workflows/schemas.ts), scaled. */
const SCALED_TIMINGS = { pollIntervalSeconds: 900 / TIME_SCALE };
/** The interface's one-minute delivery scheduler, scaled. */
const SCALED_DELIVERY_TICK_SECONDS = 60 / TIME_SCALE;

async function callsPerJourneyHour(
  webhooks: boolean,
  journeys: number,
  windowSeconds: number,
  options: BenchOptions,
): Promise<{ perJourneyHour: number; finished: boolean }> {
  const name = `polling-${webhooks ? 'webhooks' : 'lost'}`;
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, { name, deliveryTickSeconds: SCALED_DELIVERY_TICK_SECONDS });
    try {
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      options.progress(
        `polling cost, ${webhooks ? 'webhooks flowing' : 'all webhooks lost'}: ${journeys} journeys for ${windowSeconds} s (${(windowSeconds * TIME_SCALE) / 3600} scaled hours)`,
      );
      const run = await runJourneys(stack, rampflow, {
        count: journeys,
        prefix: `${name}-`,
        timings: SCALED_TIMINGS,
        timeoutMs: windowSeconds * 1000,
        webhooks,
        progress: (line) => options.progress(`  ${line}`),
      });
      await sleep(run.startedAt + windowSeconds * 1000 - Date.now());
      const calls = stack.requestLog.apiRequests() - run.apiCallsAtStart;
      const journeyHours = (journeys * windowSeconds * TIME_SCALE) / 3600;
      return { perJourneyHour: calls / journeyHours, finished: run.finished };
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}

export async function benchPollingCost(options: BenchOptions): Promise<Figure[]> {
  const journeys = options.quick ? 10 : 50;
  const windowSeconds = options.quick ? 36 : 72;
  const figures: Figure[] = [];
  for (const webhooks of [true, false]) {
    const { perJourneyHour, finished } = await callsPerJourneyHour(webhooks, journeys, windowSeconds, options);
    figures.push({
      name: `polling cost, ${webhooks ? 'webhooks flowing' : 'all webhooks lost'}: API calls per journey-hour`,
      value: perJourneyHour,
      unit: 'calls',
      method: `${journeys} journeys from start through ACTIVE and one deposit each way (${finished ? 'all completed' : 'NOT all completed'}), then idle, over ${(windowSeconds * TIME_SCALE) / 3600} h of production time scaled ${TIME_SCALE}x (poll 900 s, webhook tick 60 s, each service step 0 s); sandbox request log`,
    });
  }
  return figures;
}
