/** Options of createSandbox and their defaults. */
import pino, { type Logger } from 'pino';
import type { PartnerCredential } from './auth/authenticate';
import { DEFAULT_AUTOPILOT_DELAYS, type AutopilotDelays } from './autopilot';
import type { ClockOptions } from './clock';
import type { SandboxVariants } from './variant-types';

export interface PartnerKeyPair {
  apiKey: string;
  apiSecret: string;
  /** Key pairs with the same partnerId belong to one partner and share its records; default: the apiKey. */
  partnerId?: string;
}

export type ListOrder = 'oldest-first' | 'newest-first';

export interface SandboxOptions {
  /** At least one key pair. */
  partners: PartnerKeyPair[];
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
  /** Base URL that kycLinks point to, when the sandbox is reached through another address; default: its own URL. */
  publicUrl?: string;
  /** Accepted X-Timestamp skew either way, in seconds (DESIGN: 60). */
  acceptedSkewSeconds?: number;
  /** Points where the sandbox answers differently from what rampflow assumes (variants.ts); default: as rampflow assumes. */
  variants?: SandboxVariants;
  /** Answer authentication failures with HTTP 401 (text body), as a gateway may, instead of 422. */
  gateway401?: boolean;
  /** Failed-signature responses carry the canonical string the server built. Never expose this beyond local use. */
  debug?: boolean;
  /** Virtual clock: real time by default; `{frozen: true}` makes time move only when advanced. */
  clock?: ClockOptions;
  /** Period of the delivery scheduler (interface: 1 minute). Lower it to make a demo faster. */
  deliveryTickSeconds?: number;
  /** How long a receiver has to answer 200 (interface: 30 s). */
  ackTimeoutMs?: number;
  /**
   * Hosts besides loopback whose plain-http callback URLs are accepted, for a receiver reached by name
   * on a private network (docker compose's `webhooks`). The real service takes https only.
   */
  httpCallbackHosts?: string[];
  /** Send every delivered event twice. */
  duplicateDeliveries?: boolean;
  /** Send the deliveries due in one scheduler run newest first. */
  outOfOrderDeliveries?: boolean;
  /**
   * Divide the delivery retry policy's waits (10 min, 1 h, 1 day, 1 week) by this, so a run of minutes
   * meets the later retries; default 1 (the interface's policy).
   */
  deliveryRetrySpeedup?: number;
  /** Draws in [0, 1) for the delivery-loss switch (POST /sandbox/delivery-faults); default Math.random. A seeded one replays a run's losses. */
  deliveryLossRandom?: () => number;
  /** Delay between an AUD virtual account's approval and its whitelisted sender becoming active. */
  audWhitelistDelaySeconds?: number;
  /**
   * The order of the customer, deposit, trade and autoramp-flow lists, which the interface does not state:
   * newest first (the default: what rampflow assumes, ramp/assumptions.ts) or oldest first (stable pages
   * while records are added; the `list-order` variant).
   */
  listOrder?: ListOrder;
  /** Walk every object through the happy path: true for the default delays, or some delays overridden. */
  autopilot?: boolean | Partial<AutopilotDelays>;
  /**
   * The wall clock authentication checks X-Timestamp against (milliseconds); default Date.now. Only
   * tests replaying recorded requests pin it. The virtual clock never plays this role.
   */
  wallClock?: () => number;
  /** Request and delivery log; default silent. */
  logger?: Logger;
  /**
   * Every partner's rate limit from the start: above `callsPerSecond` calls in any sliding second, a
   * 429 with `Retry-After: retryAfterSeconds` (default 1). `POST /sandbox/rate-limit` sets it later.
   */
  rateLimit?: { callsPerSecond: number; retryAfterSeconds?: number };
}

export interface ResolvedOptions {
  credentials: PartnerCredential[];
  host: string;
  port: number;
  publicUrl: string | undefined;
  acceptedSkewSeconds: number;
  variants: Required<SandboxVariants>;
  gateway401: boolean;
  debug: boolean;
  clock: ClockOptions;
  deliveryTickSeconds: number;
  ackTimeoutMs: number;
  httpCallbackHosts: string[];
  duplicateDeliveries: boolean;
  outOfOrderDeliveries: boolean;
  deliveryRetrySpeedup: number;
  deliveryLossRandom: () => number;
  audWhitelistDelaySeconds: number;
  listOrder: ListOrder;
  autopilot: AutopilotDelays | undefined;
  wallClock: () => number;
  logger: Logger;
  rateLimit: { callsPerSecond: number; retryAfterSeconds: number } | undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`sandbox option ${name} must be a positive number`);
  return value;
}

function atLeastOne(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 1) throw new Error(`sandbox option ${name} must be a number of 1 or more`);
  return value;
}

export function resolveOptions(options: SandboxOptions): ResolvedOptions {
  if (options.partners.length === 0) throw new Error('the sandbox needs at least one partner key pair');
  const keys = new Set<string>();
  for (const partner of options.partners) {
    if (partner.apiKey === '' || partner.apiSecret === '')
      throw new Error('a partner key pair needs a non-empty key and secret');
    if (keys.has(partner.apiKey)) throw new Error(`API key ${partner.apiKey} is given twice`);
    keys.add(partner.apiKey);
  }
  const autopilot =
    options.autopilot === undefined || options.autopilot === false
      ? undefined
      : { ...DEFAULT_AUTOPILOT_DELAYS, ...(options.autopilot === true ? {} : options.autopilot) };
  if (autopilot !== undefined && Object.values(autopilot).some((seconds) => !Number.isFinite(seconds) || seconds < 0)) {
    throw new Error('autopilot delays must be zero or more seconds');
  }
  return {
    credentials: options.partners.map((partner) => ({
      apiKey: partner.apiKey,
      apiSecret: partner.apiSecret,
      partnerId: partner.partnerId ?? partner.apiKey,
    })),
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    publicUrl: options.publicUrl,
    acceptedSkewSeconds: positive('acceptedSkewSeconds', options.acceptedSkewSeconds ?? 60),
    variants: { queryParameters: 'camelCase', maxPageSize: 100, legacyCreateVaPath: '/create-va', ...options.variants },
    gateway401: options.gateway401 ?? false,
    debug: options.debug ?? false,
    clock: options.clock ?? {},
    deliveryTickSeconds: positive('deliveryTickSeconds', options.deliveryTickSeconds ?? 60),
    ackTimeoutMs: positive('ackTimeoutMs', options.ackTimeoutMs ?? 30_000),
    httpCallbackHosts: options.httpCallbackHosts ?? [],
    duplicateDeliveries: options.duplicateDeliveries ?? false,
    outOfOrderDeliveries: options.outOfOrderDeliveries ?? false,
    deliveryRetrySpeedup: atLeastOne('deliveryRetrySpeedup', options.deliveryRetrySpeedup ?? 1),
    deliveryLossRandom: options.deliveryLossRandom ?? Math.random,
    audWhitelistDelaySeconds: options.audWhitelistDelaySeconds ?? 10,
    listOrder: options.listOrder ?? 'newest-first',
    autopilot,
    wallClock: options.wallClock ?? Date.now,
    logger: options.logger ?? pino({ level: 'silent' }),
    rateLimit:
      options.rateLimit === undefined
        ? undefined
        : {
            callsPerSecond: positive('rateLimit.callsPerSecond', options.rateLimit.callsPerSecond),
            retryAfterSeconds: options.rateLimit.retryAfterSeconds ?? 1,
          },
  };
}
