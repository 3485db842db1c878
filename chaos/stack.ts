/**
 * The whole stack a chaos run plays against, every part real: Temporal (a dev server on a database
 * file, or with `--cluster` the cluster profile on PostgreSQL: chaos/temporal.ts), a private
 * PostgreSQL for the partner event store (several worker processes share it; the embedded file store
 * takes one writer), the sandbox as the service (its autopilot walks every step a second after the
 * last, but KYC, which the run's customers decide), the webhook receiver on a fixed port, a partner
 * endpoint that verifies every delivery with the `standardwebhooks` package, and the workers. The
 * service's and the receiver's log lines are kept: the invariants read them.
 */
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { dataConverterFromEnv } from '../codec';
import { uniformAutopilotDelays } from '../sandbox';
import { registerWebhooks } from '../webhooks/registration';
import { ensureReconcileSchedule } from '../webhooks/reconcile-schedule';
import { startRestartableReceiver, type RestartableReceiver } from '../test/faults/support/receiver';
import { startTestPartnerEndpoint, type TestPartnerEndpoint } from '../test/support/partner-endpoint';
import { startTestPostgres, type TestPostgres } from '../test/support/postgres';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../test/support/sandbox';
import { mulberry32 } from '../test/faults/support/random';
import { LoopStalls } from './loop-stalls';
import { startChaosTemporal, type ChaosTemporal } from './temporal';
import { fakeTimeLibrary } from './worker-clock';
import { WorkerPool } from './worker-pool';
import { resolveWorkflowBundle } from '../workers/workflow-bundle';
import type { WebhookDelivery } from './schedule';

/** How long a refused create is retried before its workflow parks as Refused (RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS). */
const REFUSED_CREATE_PARK_AFTER_SECONDS = 5;
/** The partner's limit, given to every worker as RAMP_MAX_CALLS_PER_SECOND. */
export const CALLS_PER_SECOND = 20;
/** Polls a backstop (events move the journeys), deadlines beyond any run: a pending KYC waits. */
export const JOURNEY_TIMINGS = {
  pollIntervalSeconds: 5,
  pollBackoffCapSeconds: 15,
  kycDeadlineSeconds: 86_400,
  accountsDeadlineSeconds: 86_400,
};
const DEPOSIT_TIMINGS = { pollIntervalSeconds: 5, pollBackoffCapSeconds: 15, stepDeadlineSeconds: 86_400 };
/** A forged claim the service does not confirm is dismissed after 30 s (production: an hour), so forged workflows end within the run. */
const EVENT_TIMINGS = { targetWaitSeconds: 30 };
/** Far beyond any run: customers stay CREATED until the run approves or rejects them. */
const KYC_NEVER_SECONDS = 1_000_000;
/** A payment stays PENDING this long: time for a customer whose plan fails it to find it first. */
const PAYMENT_SETTLES_SECONDS = 6;
/**
 * A trade stays PENDING this long: time for a customer whose plan refunds its deposit during the trade
 * to see the deposit's workflow wait for it (the workflow learns of the trade a delivery tick or a poll
 * after its confirmation).
 */
const TRADE_SETTLES_SECONDS = 4;
/**
 * The service's delivery retry policy sixty times faster (10 s, 1 min, 24 min, 168 min): a delivery
 * lost once comes again within the run, one lost twice is left to rampflow's polls, as a delivery lost
 * for good would be.
 */
export const DELIVERY_RETRY_SPEEDUP = 60;
/**
 * Reconciliation, as `rampflow webhooks serve` schedules it, every 30 s instead of 30 minutes: what
 * the service's deliveries did not bring (one refused while its workflow was closing, one that reached
 * a workflow to no effect) is found within the run, as production's pass finds it within its interval.
 */
export const RECONCILE_EVERY_SECONDS = 30;
/** The partner endpoint's name in PARTNER_EVENT_ENDPOINTS: what an operator enables again after a 410. */
export const ENDPOINT_NAME = 'partner';

export interface ServiceRequest {
  path: string;
  statusCode: number;
  receivedAt: number;
}

export interface ReceiverLine {
  status: number;
  source?: string;
  budget?: string;
  event?: string;
  payloadId?: string;
}

export interface ChaosStack {
  temporal: ChaosTemporal;
  postgres: TestPostgres;
  /** The partner event store the workers append to (the partner API reads it). */
  eventsDatabaseUrl: string;
  service: TestSandbox;
  connection: Connection;
  client: Client;
  taskQueue: string;
  receiver: RestartableReceiver;
  endpoint: TestPartnerEndpoint;
  workers: WorkerPool;
  serviceRequests: ServiceRequest[];
  /** Stalls of this process, which hosts the sandbox and so stamps the service's arrivals. */
  loopStalls: LoopStalls;
  receiverLines: ReceiverLine[];
  close(): Promise<void>;
}

/** One JSON log line in, parsed, to `keep`. */
const collector = <T>(keep: (line: T & { msg?: string }) => void) =>
  pino({ level: 'info' }, { write: (text: string) => keep(JSON.parse(text) as T & { msg?: string }) });

export async function startChaosStack(
  seed: number,
  {
    cluster = false,
    webhooks,
    workerClockOffsetsSeconds = [],
  }: { cluster?: boolean; webhooks?: WebhookDelivery; workerClockOffsetsSeconds?: number[] } = {},
): Promise<ChaosStack> {
  const serviceRequests: ServiceRequest[] = [];
  const receiverLines: ReceiverLine[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  const loopStalls = new LoopStalls();
  loopStalls.start();
  closers.push(async () => loopStalls.stop());
  try {
    const temporal = await startChaosTemporal(cluster);
    closers.push(() => temporal.close());
    const postgres = await startTestPostgres();
    closers.push(() => postgres.stop());
    const eventsDatabaseUrl = await postgres.createDatabase();
    const service = await startTestSandbox({
      autopilot: {
        ...uniformAutopilotDelays(1),
        kycSubmittedSeconds: KYC_NEVER_SECONDS,
        tradeSettledSeconds: TRADE_SETTLES_SECONDS,
        paymentSettledSeconds: PAYMENT_SETTLES_SECONDS,
      },
      deliveryTickSeconds: 1,
      audWhitelistDelaySeconds: 1,
      // The service's webhooks sent twice, or each tick's newest first, as the seed drew.
      duplicateDeliveries: webhooks?.duplicate ?? false,
      outOfOrderDeliveries: webhooks?.outOfOrder ?? false,
      deliveryRetrySpeedup: DELIVERY_RETRY_SPEEDUP,
      // Which attempts a loss window takes is the seed's too, from a stream of its own.
      deliveryLossRandom: mulberry32(seed ^ 0x1055),
      logger: collector<ServiceRequest>((line) => {
        if (line.msg === 'request')
          serviceRequests.push({ path: line.path, statusCode: line.statusCode, receivedAt: line.receivedAt });
      }),
    });
    closers.push(() => service.close());
    const connection = Connection.lazy({ address: temporal.address });
    closers.push(() => connection.close());
    const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
    const taskQueue = `chaos-${seed}`;
    const receiver = await startRestartableReceiver({
      client,
      taskQueue,
      depositTimings: DEPOSIT_TIMINGS,
      eventTimings: EVENT_TIMINGS,
      logger: collector<ReceiverLine>((line) => receiverLines.push(line)),
    });
    closers.push(() => receiver.stop());
    await registerWebhooks(service.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: service.sandbox.url });
    // Its runs start once workers poll; the sandbox lists newest first, as the default assumes.
    await ensureReconcileSchedule(client, {
      taskQueue,
      intervalSeconds: RECONCILE_EVERY_SECONDS,
      scheduleId: `rampflow-reconcile-${taskQueue}`,
    });
    const endpoint = await startTestPartnerEndpoint();
    closers.push(() => endpoint.close());
    const fakeTime = fakeTimeLibrary();
    // One bundle for every worker the run starts (npm run build's when it is fresh): bundled at each
    // start, the workers' restarts (about 50 in a long run) cost some 20 CPU-seconds of webpack each.
    const bundle = await resolveWorkflowBundle({ production: false });
    const workers = new WorkerPool(
      {
        WORKER_WORKFLOW_BUNDLE: bundle.codePath,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        RAMP_BASE_URL: service.sandbox.url,
        RAMP_API_KEY: TEST_PARTNER.apiKey,
        RAMP_API_SECRET: TEST_PARTNER.apiSecret,
        // The partner's limit, the same on every worker: they share it through the Temporal server
        // however many the schedule runs (workers/partner-rate.ts).
        RAMP_MAX_CALLS_PER_SECOND: String(CALLS_PER_SECOND),
        // A create the service refuses parks its journey after seconds (production: an hour), so the
        // journeys whose creates the run refuses park within the play for the operator.
        RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS: String(REFUSED_CREATE_PARK_AFTER_SECONDS),
        WORKER_METRICS_PORT: '0',
        TEMPORAL_WORKER_VERSIONING: 'false',
        DEPOSIT_POLL_INTERVAL_SECONDS: String(DEPOSIT_TIMINGS.pollIntervalSeconds),
        DEPOSIT_POLL_BACKOFF_CAP_SECONDS: String(DEPOSIT_TIMINGS.pollBackoffCapSeconds),
        DEPOSIT_STEP_DEADLINE_SECONDS: String(DEPOSIT_TIMINGS.stepDeadlineSeconds),
        PARTNER_EVENTS_DATABASE_URL: eventsDatabaseUrl,
        PARTNER_EVENT_ENDPOINTS: JSON.stringify([
          { name: ENDPOINT_NAME, url: endpoint.url, secrets: [endpoint.secret] },
        ]),
        // The endpoint is on loopback.
        PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
        // info: the start line tells when a worker polls.
        LOG_LEVEL: 'info',
      },
      fakeTime && workerClockOffsetsSeconds.length > 0
        ? { library: fakeTime, offsetsSeconds: workerClockOffsetsSeconds }
        : undefined,
    );
    closers.push(() => workers.stopAll());
    return {
      temporal,
      postgres,
      eventsDatabaseUrl,
      service,
      connection,
      client,
      taskQueue,
      receiver,
      endpoint,
      workers,
      serviceRequests,
      loopStalls,
      receiverLines,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
