/**
 * The local stack of `rampflow dev`, started in order with a progress line for each part and stopped
 * in reverse: the codec server, Temporal (the dev server with its Web UI reading payloads through
 * the codec server or, with `cluster`, the Temporal server on PostgreSQL of dev/temporal-cluster.ts),
 * the sandbox on autopilot, the worker (and the partner endpoint it delivers partner events to), the
 * webhook receiver registered with the sandbox (and the reconciliation schedule production's receiver
 * keeps), and the partner API. Everything but Temporal runs in this process, every part with the same
 * payload key.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import pino from 'pino';
import { createRampflowClient, type RampflowClient } from '../client';
import { EncryptionCodec, rampflowDataConverter } from '../codec';
import { buildCodecServer } from '../codec/codec-server';
import { parseEnv, PartnerEventsEnvSchema, PayloadKeysSchema, ReconcileEnvSchema } from '../config/env';
import {
  checkEndpointVariables,
  partnerEndpointsFromEnv,
  PartnerEventEndpointsEnvSchema,
} from '../partner-events/endpoints-env';
import type { PartnerEndpoint } from '../partner-events/endpoint-types';
import { endpointsVariable, localEndpointConfig, startLocalEndpoint } from '../partner-events/local-endpoint';
import { RampClient } from '../ramp';
import { createSandbox, type Sandbox } from '../sandbox';
import { buildPartnerApi } from '../partner-api/server';
import {
  buildWebhookServer,
  DEFAULT_RECONCILE_INTERVAL_SECONDS,
  ensureReconcileSchedule,
  RECONCILE_SCHEDULE_ID,
  registerWebhooks,
} from '../webhooks';
import { setCurrentVersion } from '../client/deployment';
import { versionString } from '../workers/versioning';
import { partnerEventsFromEnv } from '../workers/partner-event-wiring';
import { createRampflowWorker, type RampflowWorker } from '../workers/worker';
import { serviceAttemptMetrics } from '../workers/service-metrics';
import { resolveWorkflowBundle } from '../workers/workflow-bundle';
import { startDevServer, type DevServer } from './dev-server';
import { startTemporalCluster, type ClusterOptions } from './temporal-cluster';
import { localSecrets, PARTNER_ENDPOINTS_FILE } from './local-secrets';

/** The sandbox's documented local key pair (docs/sandbox.md). */
export const DEV_PARTNER = { apiKey: 'sandbox-key', apiSecret: 'sandbox-secret' };
/** The local partner API's documented bearer token (docs/integrating/README.md); it listens on loopback only. */
export const DEV_PARTNER_API_TOKEN = 'rampflow-dev-partner-api-token-local-only';
const TASK_QUEUE = 'rampflow';
/** TEMPORAL_DEPLOYMENT_NAME's default, so `temporal worker deployment describe --name rampflow` shows the dev worker. */
const DEV_DEPLOYMENT_NAME = 'rampflow';

export interface StackOptions {
  port: number;
  uiPort: number;
  sandboxPort: number;
  webhookPort: number;
  partnerApiPort: number;
  codecPort: number;
  /** The port of the local partner endpoint that prints the partner events it receives; the OS chooses when omitted. */
  partnerEventsPort?: number;
  /** The dev server's history; its folder is the stack's data folder (keys, secrets, the partner event log). */
  dbFile: string;
  /** Run on the cluster profile instead of the dev server (port and uiPort are then unused, and dbFile only names the data folder). */
  cluster?: ClusterOptions;
  /**
   * The worker's Prometheus endpoint (WORKER_METRICS_PORT), when the process's Temporal runtime was
   * installed to serve it there: the worker then counts its calls to the service on it, and the
   * stack prints its address. Undefined: no worker metrics.
   */
  workerMetricsPort?: number;
  /** STAGE_AGE_SCAN_SECONDS of the receiver (rampflow_stage_oldest_waiter_seconds); 0 or undefined: no scan. */
  stageAgeScanSeconds?: number;
  progress: (line: string) => void;
}

/** What the rest of the stack needs of Temporal, whichever kind runs. */
type Temporal = Pick<DevServer, 'address' | 'namespace' | 'uiUrl' | 'stop'>;

export interface Stack {
  temporal: Temporal;
  sandbox: Sandbox;
  /** A signed client of the sandbox, for the demo's partner-side steps. */
  ramp: RampClient;
  rampflow: RampflowClient;
  /** Where the worker delivers partner events: the local endpoint, or the developer's own configuration. */
  partnerEndpoints: PartnerEndpoint[];
  /**
   * The lines the local endpoint printed, one per delivery (undefined when the developer's own
   * endpoints are configured): the demo waits for the journey's last events on it.
   */
  heardPartnerEvents?: readonly string[];
  /** Stops every part that was started, last first. */
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const { progress } = options;
  const stoppers: (() => Promise<void>)[] = [];
  // Every part is stopped even when one fails to: a part left running keeps its port, and the
  // partner event log its writer lock, from the next stack.
  const stop = async () => {
    const failures: unknown[] = [];
    for (const stopPart of stoppers.reverse()) await stopPart().catch((error: unknown) => failures.push(error));
    stoppers.length = 0;
    if (failures.length > 0)
      throw new AggregateError(
        failures,
        `${failures.length} part(s) of the stack failed to stop: ${failures.map(String).join('; ')}`,
      );
  };
  try {
    const secrets = localSecrets(options.dbFile);
    const payloadKeys = PayloadKeysSchema.parse(secrets.payloadKeys);
    const dataConverter = rampflowDataConverter(payloadKeys);
    progress(
      `0/5 codec server on 127.0.0.1:${options.codecPort}; payloads encrypted with key '${payloadKeys[0]!.id}' (${secrets.payloadKeysFile ?? 'from RAMPFLOW_PAYLOAD_KEYS'})`,
    );
    const uiOrigin = `http://127.0.0.1:${options.uiPort}`;
    const codecServer = await buildCodecServer({
      codec: new EncryptionCodec(payloadKeys),
      token: secrets.codecToken,
      corsOrigins: [uiOrigin, `http://localhost:${options.uiPort}`],
      logger: pino({ level: 'warn' }),
    });
    await codecServer.listen({ port: options.codecPort, host: '127.0.0.1' });
    stoppers.push(() => codecServer.close());

    // The token is a path segment: the dev server's UI has no other way to present one.
    const temporal = await startTemporal(options, `http://127.0.0.1:${options.codecPort}/${secrets.codecToken}`);
    stoppers.push(() => temporal.stop());
    progress(
      `    temporal CLI: temporal workflow show -w <id> --codec-endpoint http://127.0.0.1:${options.codecPort} --codec-auth "Bearer $(cat ${secrets.codecTokenFile})"`,
    );

    progress(`2/5 sandbox on autopilot on 127.0.0.1:${options.sandboxPort} (key ${DEV_PARTNER.apiKey})`);
    const sandbox = await createSandbox({
      partners: [DEV_PARTNER],
      port: options.sandboxPort,
      // Lively rather than realistic: each step a second or two, webhooks every second.
      autopilot: {
        kycSubmittedSeconds: 1,
        customerApprovedSeconds: 2,
        virtualAccountVerifiedSeconds: 2,
        depositAddressApprovedSeconds: 2,
        depositConfirmedSeconds: 2,
        tradeSettledSeconds: 2,
        paymentSettledSeconds: 2,
      },
      deliveryTickSeconds: 1,
      audWhitelistDelaySeconds: 2,
      // Newest first, as rampflow assumes of the service (ramp/assumptions.ts): the reconciliation
      // schedule below reads only what is new since its last run.
      listOrder: 'newest-first',
    });
    const ramp = new RampClient({ baseUrl: sandbox.url, ...DEV_PARTNER });
    stoppers.push(async () => {
      await ramp.close();
      await sandbox.close();
    });
    progress(`    sandbox is up at ${sandbox.url}`);

    progress(`3/5 worker on task queue ${TASK_QUEUE}`);
    const { endpoints: partnerEndpoints, heard: heardPartnerEvents } = await startPartnerEndpoint(
      options,
      secrets.partnerEventSecret,
      secrets.partnerEventSecretFile,
      stoppers,
    );
    // The worker records partner events and delivers them; the partner API below reads the same
    // store. Its log (PARTNER_EVENTS_DIR, when not set) lives in the stack's data folder beside the
    // history and the keys: a stack with a --db-file of its own keeps its own journeys' events and
    // takes its own writer lock, so two stacks on one machine never share a log.
    const partnerEventsEnv = {
      ...process.env,
      PARTNER_EVENTS_DIR: process.env.PARTNER_EVENTS_DIR || join(dirname(options.dbFile), 'partner-events'),
    };
    const partnerEvents = await partnerEventsFromEnv(
      parseEnv(
        PartnerEventsEnvSchema.extend(PartnerEventEndpointsEnvSchema.shape).superRefine(checkEndpointVariables),
        partnerEventsEnv,
      ),
      payloadKeys,
    );
    stoppers.push(() => partnerEvents.close());
    const connection = await Connection.connect({ address: temporal.address });
    stoppers.push(() => connection.close());
    // Versioned like production, and made current at once: in development every start is a deploy.
    const bundle = await resolveWorkflowBundle({ production: false });
    const deploymentVersion = { deploymentName: DEV_DEPLOYMENT_NAME, buildId: bundle.buildId };
    const workerConnection = await NativeConnection.connect({ address: temporal.address });
    // The worker's own client, so its metrics count the worker's calls, not the demo's.
    const workerRamp = new RampClient({
      baseUrl: sandbox.url,
      ...DEV_PARTNER,
      ...(options.workerMetricsPort ? { onAttempt: serviceAttemptMetrics(Runtime.instance().metricMeter) } : {}),
    });
    stoppers.push(() => workerRamp.close());
    const worker: RampflowWorker = await createRampflowWorker({
      connection: workerConnection,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      ramp: workerRamp,
      dataConverter,
      shutdownGraceTime: '5 seconds',
      workflowBundle: { codePath: bundle.codePath },
      deploymentVersion,
      partnerEvents: partnerEvents.wiring,
    });
    const running = worker.run();
    stoppers.push(async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
    });
    await setCurrentVersion(new Client({ connection, namespace: temporal.namespace }), deploymentVersion);
    progress(
      `    worker is polling as version ${versionString(deploymentVersion)} (current; workflows ${bundle.origin})`,
    );
    progress(
      options.workerMetricsPort
        ? `    worker metrics on http://127.0.0.1:${options.workerMetricsPort}/metrics`
        : '    worker metrics off (WORKER_METRICS_PORT=0)',
    );

    progress(`4/5 webhook receiver on 127.0.0.1:${options.webhookPort}, registered with the sandbox`);
    const token = randomBytes(24).toString('hex');
    const client = new Client({ connection, namespace: temporal.namespace, dataConverter });
    const { app } = buildWebhookServer({
      token,
      allowedIps: [],
      client,
      taskQueue: TASK_QUEUE,
      logger: pino({ level: 'warn' }),
      ...(options.stageAgeScanSeconds ? { stageAgeScanSeconds: options.stageAgeScanSeconds } : {}),
    });
    await app.listen({ port: options.webhookPort, host: '127.0.0.1' });
    stoppers.push(() => app.close());
    const callbackUrl = `http://127.0.0.1:${options.webhookPort}/webhooks/ramp/${token}`;
    const { events } = await registerWebhooks(ramp, { callbackUrl, rampBaseUrl: sandbox.url, token });
    progress(`    receiver is up; the sandbox delivers ${events.length} kinds of event to it`);
    progress(
      `    receiver metrics on http://127.0.0.1:${options.webhookPort}/metrics${options.stageAgeScanSeconds ? ` (the longest waiter per stage, scanned every ${options.stageAgeScanSeconds} s)` : ''}`,
    );
    // As `rampflow webhooks serve` keeps it in production: what no event announced (a deposit whose
    // webhooks were lost) is found within the schedule's interval.
    const { RECONCILE_LIST_ORDER } = parseEnv(ReconcileEnvSchema);
    const schedule = await ensureReconcileSchedule(client, {
      taskQueue: TASK_QUEUE,
      intervalSeconds: DEFAULT_RECONCILE_INTERVAL_SECONDS,
      limits: { listOrder: RECONCILE_LIST_ORDER },
    });
    progress(
      `    reconciliation schedule ${RECONCILE_SCHEDULE_ID} ${schedule}: every ${DEFAULT_RECONCILE_INTERVAL_SECONDS / 60} min, as in production (\`rampflow webhooks reconcile\` runs one now)`,
    );

    const rampflow = await createRampflowClient({
      connection,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      payloadKeys,
    });

    progress(`5/5 partner API on 127.0.0.1:${options.partnerApiPort} (bearer token ${DEV_PARTNER_API_TOKEN})`);
    const partnerApi = buildPartnerApi({
      token: DEV_PARTNER_API_TOKEN,
      rampflow,
      events: partnerEvents.wiring.store,
      logger: pino({ level: 'warn' }),
    });
    await partnerApi.listen({ port: options.partnerApiPort, host: '127.0.0.1' });
    stoppers.push(() => partnerApi.close());
    progress(`    partner API is up; OpenAPI at http://127.0.0.1:${options.partnerApiPort}/openapi.json`);
    return {
      temporal,
      sandbox,
      ramp,
      rampflow,
      partnerEndpoints,
      ...(heardPartnerEvents ? { heardPartnerEvents } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The partner's side of partner events, played by a local endpoint (the same one as `rampflow
 * partner-events listen`): it verifies each delivery and prints one line per event. The worker finds
 * it through PARTNER_EVENT_ENDPOINTS, as a deployed worker would; a developer who set that variable
 * (or PARTNER_EVENT_ENDPOINTS_FILE), say to their own backend or a `listen`, keeps their endpoints.
 */
async function startPartnerEndpoint(
  options: StackOptions,
  secret: string,
  secretFile: string,
  stoppers: (() => Promise<void>)[],
): Promise<{ endpoints: PartnerEndpoint[]; heard?: readonly string[] }> {
  const configured = partnerEndpointsFromEnv(parseEnv(PartnerEventEndpointsEnvSchema));
  if (configured.length > 0) {
    options.progress(
      `    partner events go to the configured endpoints: ${configured.map((endpoint) => endpoint.name).join(', ')}`,
    );
    return { endpoints: recordedForOtherShells(options, configured) };
  }
  const heard: string[] = [];
  const endpoint = await startLocalEndpoint({
    secret,
    port: options.partnerEventsPort ?? 0,
    print: (line) => {
      heard.push(line);
      options.progress(`  partner event ${line}`);
    },
  });
  stoppers.push(() => endpoint.close());
  const endpoints = [localEndpointConfig(endpoint.url, secret, 'dev')];
  process.env.PARTNER_EVENT_ENDPOINTS = endpointsVariable(endpoints);
  // The local endpoint is on loopback: the worker delivers there only with the operator's opt-in.
  const allowedBefore = process.env.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS;
  process.env.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS = 'true';
  stoppers.push(async () => {
    delete process.env.PARTNER_EVENT_ENDPOINTS;
    if (allowedBefore === undefined) delete process.env.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS;
    else process.env.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS = allowedBefore;
  });
  options.progress(`    partner events go to the local endpoint ${endpoint.url} (signing secret in ${secretFile})`);
  return { endpoints: recordedForOtherShells(options, endpoints), heard };
}

/**
 * The worker's endpoints, written beside the stack's keys (owner-readable only: it holds the signing
 * secrets), so that `rampflow partner-events endpoints` in another shell shows what this worker
 * delivers to rather than what that shell configures.
 */
function recordedForOtherShells(options: StackOptions, endpoints: PartnerEndpoint[]): PartnerEndpoint[] {
  writeFileSync(join(dirname(options.dbFile), PARTNER_ENDPOINTS_FILE), `${endpointsVariable(endpoints)}\n`, {
    mode: 0o600,
  });
  return endpoints;
}

/** The dev server (its Web UI decrypting through `codecEndpoint`), or the cluster profile's server. */
async function startTemporal(options: StackOptions, codecEndpoint: string): Promise<Temporal> {
  const { progress, cluster } = options;
  if (cluster) {
    progress(`1/5 Temporal cluster on PostgreSQL, 127.0.0.1:${cluster.port} (data in ${cluster.dataDir})`);
    const temporal = await startTemporalCluster({ ...cluster, progress: (line) => progress(`    ${line}`) });
    progress('    Temporal is up (no Web UI in the cluster profile)');
    return temporal;
  }
  progress(`1/5 Temporal dev server on 127.0.0.1:${options.port} (history in ${options.dbFile})`);
  const temporal = await startDevServer({
    port: options.port,
    uiPort: options.uiPort,
    dbFile: options.dbFile,
    uiCodecEndpoint: codecEndpoint,
  });
  progress(`    Temporal is up; Web UI ${temporal.uiUrl} (decrypts through the codec server)`);
  return temporal;
}
