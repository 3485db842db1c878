/**
 * The receiver: acknowledgement latency under a steady webhook rate with Temporal up, and
 * event-to-wake latency with a worker running the journeys and their ramp-event workflows.
 */
import { randomUUID } from 'node:crypto';
import { createRampflowClient } from '../client';
import type { BenchOptions } from './options';
import { measureEventToWake } from './receiver/event-to-wake';
import { openLoopLoad } from './receiver/open-loop-load';
import { percentile, type Figure } from './report';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

const TARGET_RATE = 300;

async function acknowledgementFigures(options: BenchOptions): Promise<Figure[]> {
  const rates = options.quick ? [TARGET_RATE] : [100, TARGET_RATE, 600];
  const seconds = options.quick ? 3 : 10;
  const temporal = await startBenchTemporal();
  try {
    // No worker: the ack is Temporal accepting the start; running the workflows is measured with the journeys.
    const stack = await startRampflowStack(temporal, { name: 'receiver-load', deliveryTickSeconds: 60, autopilot: false, worker: false });
    const figures: Figure[] = [];
    try {
      // Distinct payload ids: every request is a first delivery, so a real workflow start.
      const body = () => JSON.stringify({ event: 'CUSTOMER_APPROVED', payload: { id: randomUUID(), status: 'APPROVED', externalId: `load-${randomUUID()}` } });
      await openLoopLoad(stack.webhookUrl, 50, 1, body); // warm-up: connections, JIT, the receiver's lazy Temporal connection
      for (const rate of rates) {
        options.progress(`receiver: ${rate} webhooks/s for ${seconds} s`);
        const result = await openLoopLoad(stack.webhookUrl, rate, seconds, body);
        const method = `open loop over loopback (undici, ≤256 in flight), ${result.sent} CUSTOMER_APPROVED deliveries with distinct payload ids at ${rate}/s for ${seconds} s; receiver as a child process, no worker running; ${result.failed} not 200`;
        const atTarget = rate === TARGET_RATE;
        const p99 = percentile(result.latenciesMs, 99);
        figures.push(
          { name: `receiver at ${rate}/s offered: webhooks acknowledged per second`, value: result.achievedPerSecond, unit: '/s', method },
          { name: `receiver at ${rate}/s offered: ack latency p50`, value: percentile(result.latenciesMs, 50), unit: 'ms', method },
          { name: `receiver at ${rate}/s offered: ack latency p99`, value: p99, unit: 'ms', method, ...(atTarget ? { target: '< 50', met: p99 < 50 && result.failed === 0 } : {}) },
        );
      }
      figures.push({ name: 'receiver: peak memory under load', value: stack.receiver.memory().peakMiB, unit: 'MiB', method: 'VmHWM of the receiver process after the runs above' });
    } finally {
      await stack.stop();
    }
    return figures;
  } finally {
    await temporal.stop();
  }
}

async function eventToWakeFigures(options: BenchOptions): Promise<Figure[]> {
  const count = options.quick ? 20 : 100;
  const perSecond = 20;
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, { name: 'receiver-wake', deliveryTickSeconds: 60, autopilot: false });
    try {
      const rampflow = await createRampflowClient({ connection: temporal.connection, namespace: temporal.server.namespace, taskQueue: stack.taskQueue, payloadKeys: BENCH_PAYLOAD_KEYS });
      options.progress(`event-to-wake: ${count} journeys, CUSTOMER_APPROVED at ${perSecond}/s`);
      const latencies = await measureEventToWake(stack, rampflow, count, perSecond);
      const method = `${count} journeys in AWAITING_KYC; the webhook sent to the receiver → the journey's workflow task after the customerEvent signal completed (history event time); ${perSecond} events/s; ${count - latencies.length} never woke`;
      const p99 = percentile(latencies, 99);
      return [
        { name: 'event-to-wake latency p50', value: percentile(latencies, 50), unit: 'ms', method },
        { name: 'event-to-wake latency p99', value: p99, unit: 'ms', method, target: '< 250', met: p99 < 250 && latencies.length === count },
      ];
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}

export async function benchReceiver(options: BenchOptions): Promise<Figure[]> {
  return [...(await acknowledgementFigures(options)), ...(await eventToWakeFigures(options))];
}
