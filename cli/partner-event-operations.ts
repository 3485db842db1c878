/**
 * The operator's side of partner events (docs/integrating/partner-events.md):
 * - `parked`: streams whose deliveries to an endpoint parked after their retry period, and why;
 * - `resend <stream>`: resumes them, in order, with a fresh retry period;
 * - `endpoints` and `enable <name>`: the configured endpoints, which of them a 410 Gone disabled,
 *   and turning one back on once the partner has fixed it;
 * - `catalogue`: the event catalogue as the README shows it, generated from the schemas.
 */
import type { Command } from 'commander';
import { PartnerEventDeliveries, parseStream } from '../client/partner-event-deliveries';
import { parseEnv, PartnerEventsEnvSchema, PayloadEnvSchema } from '../config/env';
import { partnerEndpointsFromEnv, PartnerEventEndpointsEnvSchema } from '../partner-events/endpoints-env';
import { partnerEventCatalogueMarkdown } from '../partner-events/catalogue-markdown';
import { openPartnerEventStore } from '../partner-events/open-store';
import type { PartnerEventStore } from '../partner-events/store';
import { printJson, withRampflowClient } from './client-session';
import { partnerEndpointsSource, withPayloadKeys } from './local-stack';

async function withStore<T>(role: 'reader' | 'writer', work: (store: PartnerEventStore) => Promise<T>): Promise<T> {
  const config = parseEnv(PartnerEventsEnvSchema.extend(PayloadEnvSchema.shape), withPayloadKeys());
  const store = await openPartnerEventStore(config, config.RAMPFLOW_PAYLOAD_KEYS, { role });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function parked(options: { json?: boolean }): Promise<void> {
  const streams = await withRampflowClient((rampflow) =>
    new PartnerEventDeliveries(rampflow.temporal, rampflow.taskQueue).parked(),
  );
  if (options.json) return printJson(streams);
  if (streams.length === 0) return void process.stdout.write('no partner event deliveries are parked\n');
  for (const entry of streams) {
    if (entry.unreadable)
      process.stdout.write(`${entry.stream}: parked; its workflow did not answer (${entry.unreadable})\n`);
    for (const endpoint of entry.endpoints) {
      process.stdout.write(
        `${entry.stream} → ${endpoint.name}: has #${endpoint.deliveredThrough} of #${entry.throughSequence}, parked since ${endpoint.since}: ${endpoint.reason}\n`,
      );
    }
  }
}

async function resend(stream: string, options: { endpoint?: string }): Promise<void> {
  const { resumed } = await withRampflowClient((rampflow) =>
    new PartnerEventDeliveries(rampflow.temporal, rampflow.taskQueue).resend(parseStream(stream), options.endpoint),
  );
  process.stdout.write(`${stream}: deliveries to ${resumed.join(', ')} resumed\n`);
}

async function endpoints(options: { json?: boolean }): Promise<void> {
  const source = partnerEndpointsSource();
  const configured = partnerEndpointsFromEnv(parseEnv(PartnerEventEndpointsEnvSchema, source.env));
  const disabled = await withStore('reader', (store) => store.disabledEndpoints());
  // Names, addresses and subscriptions only: the secrets stay where they were configured.
  const rows = configured.map((endpoint) => {
    const off = disabled.find((entry) => entry.name === endpoint.name);
    return {
      name: endpoint.name,
      url: endpoint.url,
      events: endpoint.events ?? 'all',
      ...(off ? { disabled: { since: off.since, reason: off.reason } } : {}),
    };
  });
  if (options.json) return printJson(rows);
  process.stdout.write(`${source.says}\n`);
  if (rows.length === 0) process.stdout.write('no endpoints configured: partners read events through GET /events\n');
  for (const row of rows)
    process.stdout.write(
      `${row.name}  ${row.url}  ${row.disabled ? `DISABLED since ${row.disabled.since}: ${row.disabled.reason}` : 'enabled'}\n`,
    );
}

async function enable(name: string): Promise<void> {
  await withStore('writer', (store) => store.enableEndpoint(name));
  process.stdout.write(
    `${name} enabled: new events are delivered to it (those published while it was disabled are in GET /events)\n`,
  );
}

export function registerPartnerEventOperations(partnerEvents: Command): void {
  partnerEvents
    .command('parked')
    .description("streams whose deliveries parked after their retry period, with the last attempt's reason")
    .option('--json', 'print JSON')
    .action(parked);
  partnerEvents
    .command('resend')
    .description("resume a stream's parked deliveries in order, each with a fresh retry period")
    .argument('<stream>', 'customer/<externalId> or payout/<reference>')
    .option('--endpoint <name>', "only this endpoint's")
    .action(resend);
  partnerEvents
    .command('endpoints')
    .description(
      "the endpoints this shell configures (PARTNER_EVENT_ENDPOINTS[_FILE]) or, when it sets neither, the local stack's worker's (.data/); and which a 410 Gone disabled",
    )
    .option('--json', 'print JSON')
    .action(endpoints);
  partnerEvents
    .command('enable')
    .description(
      'deliver to an endpoint a 410 Gone disabled again (with the embedded store, while no worker runs: it takes one writer)',
    )
    .argument('<name>')
    .action(enable);
  partnerEvents
    .command('catalogue')
    .description('print the event catalogue (Markdown), generated from the schemas')
    .action(() => void process.stdout.write(`${partnerEventCatalogueMarkdown()}\n`));
}
