/**
 * `rampflow sandbox`: runs the local emulator of the partner ramp service until interrupted.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createLogger } from '../config/logger';
import {
  createSandbox,
  SANDBOX_VARIANTS,
  uniformAutopilotDelays,
  variantOptions,
  type PartnerKeyPair,
} from '../sandbox';

function keyPair(value: string, previous: PartnerKeyPair[] | undefined): PartnerKeyPair[] {
  // The key ends at the first colon; the secret is the rest, so a secret may contain colons.
  const at = value.indexOf(':');
  if (at <= 0 || at === value.length - 1) throw new InvalidArgumentError('expected <API_KEY>:<API_SECRET>');
  return [...(previous ?? []), { apiKey: value.slice(0, at), apiSecret: value.slice(at + 1) }];
}

function number(label: string, allowZero: boolean) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0 || (!allowZero && parsed === 0))
      throw new InvalidArgumentError(`${label} must be a ${allowZero ? 'non-negative' : 'positive'} number`);
    return parsed;
  };
}

interface SandboxCommandOptions {
  host: string;
  port: number;
  partner: PartnerKeyPair[];
  publicUrl?: string;
  autopilot: boolean;
  autopilotDelay?: number;
  debug: boolean;
  gateway401: boolean;
  skew: number;
  deliveryTick: number;
  ackTimeout: number;
  httpCallbackHost: string[];
  duplicateDeliveries: boolean;
  outOfOrderDeliveries: boolean;
  audWhitelistDelay: number;
  frozenClock: boolean;
  variant: string[];
}

function variantPair(value: string, previous: string[]): string[] {
  const pairs = [...previous, value];
  try {
    variantOptions(pairs);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return pairs;
}

const VARIANT_HELP = Object.entries(SANDBOX_VARIANTS)
  .map(([name, { description, defaultValue }]) => `${name} (${description}; default ${defaultValue})`)
  .join('; ');

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the local emulator of the partner ramp service (signed API, simulation endpoints, virtual clock)')
    .addOption(
      new Option('--partner <KEY:SECRET>', 'a partner API key pair; repeat for several partners')
        .argParser(keyPair)
        .makeOptionMandatory(),
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', number('port', true), 8787)
    .option('--public-url <url>', 'base URL kycLinks point to, when the sandbox is reached through another address')
    .option('--autopilot', 'walk every object through the happy path by itself', false)
    .option(
      '--autopilot-delay <seconds>',
      'delay of every autopilot step (default 2-3 s)',
      number('autopilot delay', true),
    )
    .option('--debug', 'failed-signature responses carry the canonical string the server built', false)
    .option('--gateway-401', 'answer authentication failures with HTTP 401 as a gateway may, instead of 422', false)
    .option('--skew <seconds>', 'accepted X-Timestamp skew', number('skew', false), 60)
    .option('--delivery-tick <seconds>', 'period of the event delivery scheduler', number('delivery tick', false), 60)
    .option('--ack-timeout <ms>', 'how long a webhook receiver has to answer 200', number('ack timeout', false), 30_000)
    .option(
      '--http-callback-host <host>',
      'also accept plain-http callback URLs to this host (a receiver on a private network, e.g. docker compose); repeatable',
      (host: string, hosts: string[]) => [...hosts, host],
      [] as string[],
    )
    .option('--duplicate-deliveries', 'send every delivered event twice', false)
    .option('--out-of-order-deliveries', 'send the events due in one scheduler run newest first', false)
    .option(
      '--aud-whitelist-delay <seconds>',
      'delay before an approved AUD sender is whitelisted',
      number('AUD whitelist delay', true),
      10,
    )
    .option(
      '--variant <name=value>',
      `answer differently from what rampflow assumes, for \`rampflow probe\`; repeatable: ${VARIANT_HELP}`,
      variantPair,
      [] as string[],
    )
    .option('--frozen-clock', 'time moves only through POST /sandbox/clock/advance', false)
    .action(async (options: SandboxCommandOptions) => {
      const logger = createLogger('rampflow-sandbox');
      const delay = options.autopilotDelay;
      const sandbox = await createSandbox({
        partners: options.partner,
        host: options.host,
        port: options.port,
        publicUrl: options.publicUrl,
        autopilot: options.autopilot ? (delay === undefined ? true : uniformAutopilotDelays(delay)) : false,
        debug: options.debug,
        gateway401: options.gateway401,
        acceptedSkewSeconds: options.skew,
        deliveryTickSeconds: options.deliveryTick,
        ackTimeoutMs: options.ackTimeout,
        httpCallbackHosts: options.httpCallbackHost,
        duplicateDeliveries: options.duplicateDeliveries,
        outOfOrderDeliveries: options.outOfOrderDeliveries,
        audWhitelistDelaySeconds: options.audWhitelistDelay,
        clock: { frozen: options.frozenClock },
        logger,
        // A variant wins over the option it stands for (accepted-skew over --skew).
        ...variantOptions(options.variant),
      });
      // Keys are listed so the operator can tell which partners exist; secrets never are.
      logger.info(
        { url: sandbox.url, partners: options.partner.map((partner) => partner.apiKey), autopilot: options.autopilot },
        'sandbox listening',
      );
      if (options.variant.length > 0)
        logger.info(
          { variants: options.variant },
          'sandbox variants: answering differently from what rampflow assumes',
        );
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await sandbox.close();
      logger.info('sandbox stopped');
    });
}
