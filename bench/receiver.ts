/**
 * The receiver: acknowledgement latency under a steady webhook rate with Temporal up, and
 * event-to-wake latency with a worker running the journeys and their ramp-event workflows.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { request } from 'undici';
import { createRampflowClient, type RampflowClient } from '../client';
import { rampflowDataConverter } from '../codec';
import { customerEventSignal, journeyWorkflowId } from '../workflows/common/messages';
import { journeyRequest } from './journeys/partner';
import type { BenchOptions } from './options';
import { measureEventToWake } from './receiver/event-to-wake';
import { type LoadResult, openLoop, openLoopLoad } from './receiver/open-loop-load';
import { forEachLimited } from './support/concurrency';
import { type Figure, percentile } from './report';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

/** The target: at least this many directly routed deliveries a second, acknowledged with p99 < 50 ms. */
const TARGET_RATE = 300;
/** ... and at least this share of the floor's rate (a bare loop of the same signals to the same server). */
const TARGET_SHARE_OF_FLOOR = 0.9;

interface RatePair {
  rate: number;
  receiver: LoadResult;
  /** The receiver process's CPU time over its run, in ms. */
  receiverCpuMs: number;
  floor: LoadResult;
}

async function acknowledgementFigures(options: BenchOptions): Promise<Figure[]> {
  const rates = options.quick ? [TARGET_RATE, 600] : [100, TARGET_RATE, 600, 1200];
  const seconds = options.quick ? 3 : 10;
  const journeyCount = options.quick ? 50 : 300;
  const temporal = await startBenchTemporal();
  try {
    // No worker: the ack is Temporal accepting the signal; what the journey does with it is event-to-wake's.
    const stack = await startRampflowStack(temporal, {
      name: 'receiver-load',
      deliveryTickSeconds: 60,
      autopilot: false,
      worker: false,
    });
    const floorConnection = await Connection.connect({ address: temporal.server.address });
    const figures: Figure[] = [];
    try {
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      options.progress(`receiver: starting ${journeyCount} journeys for the deliveries to wake`);
      const externalIds = await startWaitingJourneys(rampflow, journeyCount);
      // Each delivery a distinct approval (its own payload id, so its own key: no deduplication) of a
      // running journey's customer: routed directly, one signal to journey/<externalId>.
      const approval = (i: number) => ({
        id: randomUUID(),
        status: 'APPROVED',
        externalId: externalIds[i % externalIds.length]!,
      });
      const body = (i: number) => JSON.stringify({ event: 'CUSTOMER_APPROVED', payload: approval(i) });
      // The floor: the same signal, with the same encrypted payload, from one process to the same server.
      const floorClient = new Client({
        connection: floorConnection,
        namespace: temporal.server.namespace,
        dataConverter: rampflowDataConverter(BENCH_PAYLOAD_KEYS),
      });
      const signal = async (i: number) => {
        const record = approval(i);
        await floorClient.workflow.getHandle(journeyWorkflowId(record.externalId)).signal(customerEventSignal, {
          key: `CUSTOMER_APPROVED/${record.id}`,
          event: 'CUSTOMER_APPROVED',
          record,
          fromPayload: true,
        });
        return true;
      };
      // Warm-up: connections, JIT, the receiver's lazy Temporal connection.
      await openLoopLoad(stack.webhookUrl, 50, 1, body);
      await openLoop(50, 1, signal);
      const routesBefore = await routedCounts(stack.webhookUrl);
      const pairs: RatePair[] = [];
      // Floor and receiver alternate at each rate, so both meet the same machine.
      for (const rate of rates) {
        options.progress(`receiver: ${rate}/s for ${seconds} s, bare signals then webhooks`);
        const floor = await openLoop(rate, seconds, signal);
        const cpuBefore = stack.receiver.cpuMs();
        const receiver = await openLoopLoad(stack.webhookUrl, rate, seconds, body);
        pairs.push({ rate, receiver, receiverCpuMs: stack.receiver.cpuMs() - cpuBefore, floor });
      }
      const routes = await routedCounts(stack.webhookUrl);
      const signalled = routes.signalled - routesBefore.signalled;
      const fellBack = routes.toWorkflow - routesBefore.toWorkflow;
      const how = `open loop over loopback (undici, ≤256 in flight), CUSTOMER_APPROVED deliveries with distinct payload ids naming ${journeyCount} running journeys (no worker), ${seconds} s a rate; receiver as a child process at LOG_LEVEL=info; latency from each request's scheduled send to its 200; of all the runs' deliveries ${signalled} routed directly (signalled), ${fellBack} to the ramp-event workflow`;
      const floorHow = `the same signal (customerEvent, the same encrypted record) sent by the Temporal client from the benchmark's one process to the same dev server, open loop, ${seconds} s a rate, run just before the receiver at each rate`;
      for (const { rate, receiver, receiverCpuMs, floor } of pairs) {
        const atTarget = rate === TARGET_RATE;
        const p99 = percentile(receiver.latenciesMs, 99);
        figures.push(
          {
            name: `receiver at ${rate}/s offered: acknowledged per second`,
            value: receiver.achievedPerSecond,
            unit: '/s',
            method: `${how}; ${receiver.failed} of ${receiver.sent} not 200`,
            ...(atTarget
              ? {
                  target: `>= ${TARGET_RATE}`,
                  met: receiver.achievedPerSecond >= TARGET_RATE * 0.98 && receiver.failed === 0,
                }
              : {}),
          },
          {
            name: `receiver at ${rate}/s offered: ack latency p50`,
            value: percentile(receiver.latenciesMs, 50),
            unit: 'ms',
            method: how,
          },
          {
            name: `receiver at ${rate}/s offered: CPU per delivery`,
            value: receiverCpuMs / receiver.sent,
            unit: 'ms',
            method: `the receiver process's CPU time (user + system, /proc) over the run, divided by the deliveries sent: ${Math.round(receiverCpuMs)} ms in ${seconds} s`,
          },
          {
            name: `receiver at ${rate}/s offered: ack latency p99`,
            value: p99,
            unit: 'ms',
            method: how,
            ...(atTarget ? { target: '< 50', met: p99 < 50 && receiver.failed === 0 } : {}),
          },
          {
            name: `floor at ${rate}/s offered: signals per second, p99`,
            value: floor.achievedPerSecond,
            unit: '/s',
            method: `${floorHow}; p99 ${Math.round(percentile(floor.latenciesMs, 99))} ms, ${floor.failed} failed`,
          },
        );
      }
      const receiverMax = Math.max(...pairs.map((pair) => pair.receiver.achievedPerSecond));
      const floorMax = Math.max(...pairs.map((pair) => pair.floor.achievedPerSecond));
      const share = receiverMax / floorMax;
      figures.push({
        name: 'receiver / floor: highest rate acknowledged',
        value: share,
        unit: 'x',
        method: `the receiver's highest acknowledged rate over the rates offered (${Math.round(receiverMax)}/s) over the bare signals' (${Math.round(floorMax)}/s)`,
        target: `>= ${TARGET_SHARE_OF_FLOOR}`,
        met: share >= TARGET_SHARE_OF_FLOOR,
      });
      figures.push({
        name: 'receiver: peak memory under load',
        value: stack.receiver.memory().peakMiB,
        unit: 'MiB',
        method: 'VmHWM of the receiver process after the runs above',
      });
    } finally {
      await floorConnection.close();
      await stack.stop();
    }
    return figures;
  } finally {
    await temporal.stop();
  }
}

/** Journeys that wait (no worker runs them), each a running `journey/<externalId>` a delivery can signal. */
async function startWaitingJourneys(rampflow: RampflowClient, count: number): Promise<string[]> {
  const prefix = `ack-${Date.now().toString(36)}-`;
  const externalIds = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  await forEachLimited(externalIds, 32, async (externalId) => {
    await rampflow.startJourney(journeyRequest(externalId, { pollIntervalSeconds: 3600 }));
  });
  return externalIds;
}

/** From the receiver's own metrics: deliveries it signalled directly, and those it sent to the ramp-event workflow. */
async function routedCounts(webhookUrl: string): Promise<{ signalled: number; toWorkflow: number }> {
  const response = await request(`${new URL(webhookUrl).origin}/metrics`);
  const text = await response.body.text();
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((total, match) => total + Number(match[1]), 0);
  return {
    signalled: sum(/^rampflow_webhook_handoff_seconds_count\{result="signalled"\} (\d+)/gm),
    toWorkflow: sum(/^rampflow_webhook_workflow_routes_total\{[^}]*\} (\d+)/gm),
  };
}

async function eventToWakeFigures(options: BenchOptions): Promise<Figure[]> {
  const count = options.quick ? 20 : 100;
  const perSecond = 20;
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, {
      name: 'receiver-wake',
      deliveryTickSeconds: 60,
      autopilot: false,
    });
    try {
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      options.progress(`event-to-wake: ${count} journeys, CUSTOMER_APPROVED at ${perSecond}/s`);
      const latencies = await measureEventToWake(stack, rampflow, count, perSecond);
      const method = `${count} journeys in AWAITING_KYC; the webhook sent to the receiver → the journey's workflow task after the customerEvent signal completed (history event time); ${perSecond} events/s; ${count - latencies.length} never woke`;
      const p99 = percentile(latencies, 99);
      return [
        { name: 'event-to-wake latency p50', value: percentile(latencies, 50), unit: 'ms', method },
        {
          name: 'event-to-wake latency p99',
          value: p99,
          unit: 'ms',
          method,
          target: '< 250',
          met: p99 < 250 && latencies.length === count,
        },
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
