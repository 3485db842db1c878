/**
 * The local stack of `rampflow dev`, started in order with a progress line for each part and stopped
 * in reverse: the codec server, the Temporal dev server with its Web UI reading payloads through it,
 * the sandbox on autopilot, the worker, and the webhook receiver registered with the sandbox.
 * Everything but the dev server runs in this process, every part with the same payload key.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import pino from 'pino';
import { createRampflowClient, type RampflowClient } from '../client';
import { EncryptionCodec, rampflowDataConverter } from '../codec';
import { buildCodecServer } from '../codec/codec-server';
import { PayloadKeysSchema } from '../config/env';
import { RampClient } from '../ramp';
import { createSandbox, type Sandbox } from '../sandbox';
import { buildWebhookServer, registerWebhooks } from '../webhooks';
import { createRampflowWorker } from '../workers/worker';
import { startDevServer, type DevServer } from './dev-server';
import { localSecrets } from './local-secrets';

/** The sandbox's documented local key pair (README, "The sandbox"). */
export const DEV_PARTNER = { apiKey: 'sandbox-key', apiSecret: 'sandbox-secret' };
const TASK_QUEUE = 'rampflow';

export interface StackOptions {
  port: number;
  uiPort: number;
  sandboxPort: number;
  webhookPort: number;
  codecPort: number;
  dbFile: string;
  progress: (line: string) => void;
}

export interface Stack {
  temporal: DevServer;
  sandbox: Sandbox;
  /** A signed client of the sandbox, for the demo's partner-side steps. */
  ramp: RampClient;
  rampflow: RampflowClient;
  /** Stops every part that was started, last first. */
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const { progress } = options;
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopPart of stoppers.reverse()) await stopPart();
  };
  try {
    const secrets = localSecrets(options.dbFile);
    const payloadKeys = PayloadKeysSchema.parse(secrets.payloadKeys);
    const dataConverter = rampflowDataConverter(payloadKeys);
    progress(`0/4 codec server on 127.0.0.1:${options.codecPort}; payloads encrypted with key '${payloadKeys[0]!.id}' (${secrets.payloadKeysFile ?? 'from RAMPFLOW_PAYLOAD_KEYS'})`);
    const uiOrigin = `http://127.0.0.1:${options.uiPort}`;
    const codecServer = await buildCodecServer({
      codec: new EncryptionCodec(payloadKeys),
      token: secrets.codecToken,
      corsOrigins: [uiOrigin, `http://localhost:${options.uiPort}`],
      logger: pino({ level: 'warn' }),
    });
    await codecServer.listen({ port: options.codecPort, host: '127.0.0.1' });
    stoppers.push(() => codecServer.close());

    progress(`1/4 Temporal dev server on 127.0.0.1:${options.port} (history in ${options.dbFile})`);
    const temporal = await startDevServer({
      port: options.port,
      uiPort: options.uiPort,
      dbFile: options.dbFile,
      // The token is a path segment: the dev server's UI has no other way to present one.
      uiCodecEndpoint: `http://127.0.0.1:${options.codecPort}/${secrets.codecToken}`,
    });
    stoppers.push(() => temporal.stop());
    progress(`    Temporal is up; Web UI ${temporal.uiUrl} (decrypts through the codec server)`);
    progress(`    temporal CLI: temporal workflow show -w <id> --codec-endpoint http://127.0.0.1:${options.codecPort} --codec-auth "Bearer $(cat ${secrets.codecTokenFile})"`);

    progress(`2/4 sandbox on autopilot on 127.0.0.1:${options.sandboxPort} (key ${DEV_PARTNER.apiKey})`);
    const sandbox = await createSandbox({
      partners: [DEV_PARTNER],
      port: options.sandboxPort,
      // Lively rather than realistic: each step a second or two, webhooks every second.
      autopilot: { kycSubmittedSeconds: 1, customerApprovedSeconds: 2, virtualAccountVerifiedSeconds: 2, depositAddressApprovedSeconds: 2, depositConfirmedSeconds: 2, tradeSettledSeconds: 2, paymentSettledSeconds: 2 },
      deliveryTickSeconds: 1,
      audWhitelistDelaySeconds: 2,
    });
    const ramp = new RampClient({ baseUrl: sandbox.url, ...DEV_PARTNER });
    stoppers.push(async () => {
      await ramp.close();
      await sandbox.close();
    });
    progress(`    sandbox is up at ${sandbox.url}`);

    progress(`3/4 worker on task queue ${TASK_QUEUE}`);
    const workerConnection = await NativeConnection.connect({ address: temporal.address });
    const worker: Worker = await createRampflowWorker({ connection: workerConnection, namespace: temporal.namespace, taskQueue: TASK_QUEUE, ramp, dataConverter, shutdownGraceTime: '5 seconds' });
    const running = worker.run();
    stoppers.push(async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
    });
    progress('    worker is polling');

    progress(`4/4 webhook receiver on 127.0.0.1:${options.webhookPort}, registered with the sandbox`);
    const connection = await Connection.connect({ address: temporal.address });
    stoppers.push(() => connection.close());
    const token = randomBytes(24).toString('hex');
    const { app } = buildWebhookServer({
      token,
      allowedIps: [],
      client: new Client({ connection, namespace: temporal.namespace, dataConverter }),
      taskQueue: TASK_QUEUE,
      logger: pino({ level: 'warn' }),
    });
    await app.listen({ port: options.webhookPort, host: '127.0.0.1' });
    stoppers.push(() => app.close());
    const callbackUrl = `http://127.0.0.1:${options.webhookPort}/webhooks/ramp/${token}`;
    const { events } = await registerWebhooks(ramp, { callbackUrl, rampBaseUrl: sandbox.url, token });
    progress(`    receiver is up; the sandbox delivers ${events.length} kinds of event to it`);

    const rampflow = await createRampflowClient({ connection, namespace: temporal.namespace, taskQueue: TASK_QUEUE, payloadKeys });
    return { temporal, sandbox, ramp, rampflow, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
