/**
 * `rampflow partner-events listen` (the operators' commands are in cli/partner-event-operations.ts): a local partner endpoint for developing against partner events,
 * in the manner of `stripe listen` (docs/integrating/partner-events.md). It verifies every delivery,
 * prints one line per event and, with --forward-to, passes it on unchanged to the developer's own
 * handler. At start it prints, once, the PARTNER_EVENT_ENDPOINTS value that points a worker at it:
 * the only place rampflow ever prints a secret, because the developer must copy it.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { secretProblem } from '../partner-events/endpoints';
import {
  endpointsVariable,
  generateEndpointSecret,
  localEndpointConfig,
  startLocalEndpoint,
} from '../partner-events/local-endpoint';
import { parsePort } from './options';
import { registerPartnerEventOperations } from './partner-event-operations';

interface ListenOptions {
  forwardTo?: string;
  port: string;
  secret?: string;
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL, for example http://localhost:3000/hooks');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http(s) URL');
  return url.toString();
}

/** Checked here, not by a commander argument parser: commander would quote the bad value, a secret even when bad. */
function checkedSecret(value: string | undefined): string {
  if (value === undefined) return generateEndpointSecret();
  const problem = secretProblem(value);
  if (problem) throw new Error(`--secret ${problem}`);
  return value;
}

async function listen(options: ListenOptions): Promise<void> {
  const port = parsePort('--port', options.port);
  const secret = checkedSecret(options.secret);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const endpoint = await startLocalEndpoint({
    secret,
    port,
    print,
    ...(options.forwardTo ? { forwardTo: options.forwardTo } : {}),
  });
  print(
    `listening on ${endpoint.url}${options.forwardTo ? `, forwarding to ${options.forwardTo}` : ' (not forwarding: every verified delivery is answered 200)'}`,
  );
  print('point the worker here with (printed once; it holds the signing secret):');
  print(`PARTNER_EVENT_ENDPOINTS='${endpointsVariable([localEndpointConfig(endpoint.url, secret, 'local-listen')])}'`);
  // This endpoint is on loopback, which a worker refuses unless told otherwise.
  print('PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true');
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  print(`${signal}: stopping`);
  await endpoint.close();
}

export function registerPartnerEventsCommand(program: Command): void {
  const partnerEvents = program
    .command('partner-events')
    .description("the events rampflow sends to the partner's backend (Standard Webhooks)");
  partnerEvents
    .command('listen')
    .description(
      'run a local endpoint on 127.0.0.1 that verifies deliveries, prints one line per event and forwards them; Ctrl-C stops it',
    )
    .option(
      '--forward-to <url>',
      'pass each verified delivery on, body and webhook-* headers unchanged, and answer with its verdict (2xx → 200, 410 → 410, else 502)',
      httpUrl,
    )
    .option('--port <port>', 'port to listen on', '8790')
    .option(
      '--secret <whsec>',
      'the whsec_ signing secret to verify with (default: a fresh one, printed in the configuration line)',
    )
    .action(listen);
  registerPartnerEventOperations(partnerEvents);
}
