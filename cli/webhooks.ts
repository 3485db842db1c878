/**
 * `rampflow webhooks serve | register | reconcile`: the webhook receiver, the service-side
 * registration of its URL, and a one-off reconciliation run (see README, "Webhooks").
 */
import { Client, Connection } from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';
import { rampflowDataConverter } from '../codec';
import {
  parseEnv,
  PayloadEnvSchema,
  RampAssumptionsEnvSchema,
  RampEnvSchema,
  ReconcileEnvSchema,
  temporalTls,
  TemporalEnvSchema,
  WebhookEnvSchema,
} from '../config/env';
import { RampClient } from '../ramp';
import { loadAssumptionsFile } from '../ramp/assumptions-file';
import { redactCallbackUrl, registerWebhooks, runWebhookReceiver } from '../webhooks';
import { RECONCILE_SCHEDULE_ID } from '../webhooks/reconcile-schedule';
import type { reconcileWithService } from '../workflows/reconcile/workflow';
import { withPayloadKeys } from './local-stack';

function positiveSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 60)
    throw new InvalidArgumentError('expected a whole number of seconds, at least 60');
  return seconds;
}

async function register(options: { url?: string; allowHttp?: boolean }): Promise<void> {
  const rampEnv = parseEnv(RampEnvSchema);
  const webhookEnv = parseEnv(WebhookEnvSchema.partial());
  const url = options.url ?? webhookEnv.WEBHOOK_PUBLIC_URL;
  if (!url) throw new Error('give the public URL with --url (or set WEBHOOK_PUBLIC_URL)');
  const ramp = new RampClient({
    baseUrl: rampEnv.RAMP_BASE_URL,
    apiKey: rampEnv.RAMP_API_KEY,
    apiSecret: rampEnv.RAMP_API_SECRET,
    assumptions: loadAssumptionsFile(rampEnv.RAMP_ASSUMPTIONS_FILE),
  });
  try {
    const { events } = await registerWebhooks(ramp, {
      callbackUrl: url,
      rampBaseUrl: rampEnv.RAMP_BASE_URL,
      allowHttp: options.allowHttp === true,
      ...(webhookEnv.WEBHOOK_TOKEN ? { token: webhookEnv.WEBHOOK_TOKEN } : {}),
    });
    // The token is the URL's only secret: it is never printed.
    process.stdout.write(
      `callback URL registered: ${redactCallbackUrl(url)}\nsubscribed to ${events.length} events: ${events.join(', ')}\n`,
    );
  } finally {
    await ramp.close();
  }
}

async function reconcileNow(): Promise<void> {
  const temporal = parseEnv(TemporalEnvSchema.extend(PayloadEnvSchema.shape), withPayloadKeys());
  const { RECONCILE_LIST_ORDER } = parseEnv(ReconcileEnvSchema);
  const listOrder =
    loadAssumptionsFile(parseEnv(RampAssumptionsEnvSchema).RAMP_ASSUMPTIONS_FILE).listOrder ?? RECONCILE_LIST_ORDER;
  const connection = await Connection.connect({
    address: temporal.TEMPORAL_ADDRESS,
    tls: temporalTls(temporal),
    ...(temporal.TEMPORAL_API_KEY ? { apiKey: temporal.TEMPORAL_API_KEY } : {}),
  });
  try {
    const client = new Client({
      connection,
      namespace: temporal.TEMPORAL_NAMESPACE,
      dataConverter: rampflowDataConverter(temporal.RAMPFLOW_PAYLOAD_KEYS),
    });
    const result = await client.workflow.execute<typeof reconcileWithService>('reconcileWithService', {
      workflowId: `${RECONCILE_SCHEDULE_ID}-manual-${new Date().toISOString()}`,
      taskQueue: temporal.TEMPORAL_TASK_QUEUE,
      // A run by hand has no watermark: it reads every list in full (up to its page limit).
      args: [{ listOrder }],
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await connection.close();
  }
}

export function registerWebhooksCommand(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description("the receiver of the ramp service's webhooks, its registration, and reconciliation");
  webhooks
    .command('serve')
    .description(
      'run the webhook receiver until SIGINT/SIGTERM; configured by WEBHOOK_* and TEMPORAL_* variables (LOG_LEVEL optional)',
    )
    .option('--no-reconcile-schedule', 'do not create or update the reconciliation schedule at start')
    .option('--reconcile-every <seconds>', 'interval of the reconciliation schedule', positiveSeconds)
    .action(async (options: { reconcileSchedule: boolean; reconcileEvery?: number }) => {
      await runWebhookReceiver({
        reconcileSchedule: options.reconcileSchedule,
        ...(options.reconcileEvery ? { reconcileEverySeconds: options.reconcileEvery } : {}),
      });
    });
  webhooks
    .command('register')
    .description(
      "register the receiver's public URL with the service (POST /callback-url) and subscribe to every new-format event; uses RAMP_* variables",
    )
    .option(
      '--url <url>',
      'the public HTTPS URL, https://<host>/webhooks/ramp/<WEBHOOK_TOKEN> (default: WEBHOOK_PUBLIC_URL)',
    )
    .option('--allow-http', 'accept a plain-http URL: only for a sandbox on a private network, such as docker compose')
    .action(register);
  webhooks
    .command('reconcile')
    .description('run one reconciliation now (a worker must be running) and print what it repaired')
    .action(reconcileNow);
}
