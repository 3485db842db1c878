/**
 * The one place where the environment is read. Each process parses only the sections it needs, with
 * zod, and a bad environment fails at start-up with one line per bad variable. Secret values are
 * never echoed back in those lines.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_LIST_ORDER, LIST_ORDERS } from './list-orders';
import { SIGNUP_WAIT_DEFAULT_SECONDS, SIGNUP_WAIT_MAX_SECONDS } from './signup-wait';
import { WEBHOOK_ROUTINGS } from './webhook-routings';
import { WorkerMemoryMbSchema } from './worker-memory';

const hostPort = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port, for example 127.0.0.1:7233');
const port = z.coerce.number().int().min(1).max(65535);
const optionalFile = z.string().min(1).optional();

export const TemporalEnvSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('rampflow'),
  /** Temporal Cloud API key; implies TLS. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** Client certificate and key files for mTLS to a self-hosted cluster or Temporal Cloud. */
  TEMPORAL_TLS_CERT: optionalFile,
  TEMPORAL_TLS_KEY: optionalFile,
  /** A CA bundle file when the server's certificate is not signed by a public CA. */
  TEMPORAL_TLS_CA: optionalFile,
});

/**
 * A JSON file overriding what rampflow assumes of the service (ramp/assumptions-file.ts checks it;
 * `rampflow probe` prints the keys a deployment needs). Read by every process that calls the service
 * or reconciles its lists.
 */
export const RampAssumptionsEnvSchema = z.object({
  RAMP_ASSUMPTIONS_FILE: optionalFile,
});

export const RampEnvSchema = z.object({
  RAMP_BASE_URL: z.url({ protocol: /^https?$/ }),
  RAMP_API_KEY: z.string().min(1),
  RAMP_API_SECRET: z.string().min(1),
  ...RampAssumptionsEnvSchema.shape,
});

export const WebhookEnvSchema = z.object({
  WEBHOOK_PORT: port.default(8788),
  WEBHOOK_TOKEN: z.string().min(16, 'must be at least 16 characters: it is the only secret in the webhook URL'),
  /** Comma-separated IPs allowed to deliver webhooks; empty means any. */
  WEBHOOK_ALLOWED_IPS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((ip) => ip.trim())
        .filter((ip) => ip.length > 0),
    ),
  /** Comma-separated proxies (IPs or CIDR ranges) whose X-Forwarded-For names a delivery's source; empty: the TCP peer is the source. */
  WEBHOOK_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((ip) => ip.trim())
        .filter((ip) => ip.length > 0),
    ),
  /** The public HTTPS URL the service delivers to (used when registering the callback). */
  WEBHOOK_PUBLIC_URL: z.url().optional(),
  /**
   * `direct`: the receiver signals each event's target from the payload where it can (one action, no
   * service call), and hands the rest to a ramp-event workflow; `workflow`: every delivery starts a
   * ramp-event workflow, which re-reads the record through the signed API (webhooks/direct-route.ts).
   */
  WEBHOOK_ROUTING: z.enum(WEBHOOK_ROUTINGS).default('direct'),
  /**
   * How often the receiver scans visibility for the longest waiter at each stage (the
   * rampflow_stage_oldest_waiter_seconds gauge and the RampflowStageOverSla alert): 15 visibility
   * calls a scan in the steady state; 0 turns the scan off (on all but one replica, say).
   */
  STAGE_AGE_SCAN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600)
    .refine((seconds) => seconds === 0 || seconds >= 15, 'at least 15 (seconds), or 0 for no scan')
    .default(60),
  /**
   * The receiver's budget (webhooks/receiver-budget.ts): token buckets a leaked token cannot exceed.
   * Past one, a delivery is answered 429 with Retry-After and the service retries it later.
   */
  WEBHOOK_SOURCE_PER_SECOND: z.coerce.number().positive().max(10_000).default(50),
  WEBHOOK_SOURCE_BURST: z.coerce.number().int().min(1).max(100_000).default(500),
  WEBHOOK_TARGET_PER_MINUTE: z.coerce.number().positive().max(6_000).default(6),
  WEBHOOK_TARGET_BURST: z.coerce.number().int().min(1).max(10_000).default(10),
  WEBHOOK_STARTS_PER_SECOND: z.coerce.number().positive().max(10_000).default(10),
  WEBHOOK_STARTS_BURST: z.coerce.number().int().min(1).max(100_000).default(500),
  WEBHOOK_TOTAL_STARTS_PER_SECOND: z.coerce.number().positive().max(100_000).default(50),
  WEBHOOK_TOTAL_STARTS_BURST: z.coerce.number().int().min(1).max(1_000_000).default(1000),
});

/** Read where the reconciliation schedule is created (the webhook receiver) and by `rampflow webhooks reconcile`. */
export const ReconcileEnvSchema = z.object({
  /**
   * How the service orders its customer, deposit and trade lists, which the interface does not say
   * (ramp/assumptions.ts): `newest-first` lets each reconciliation run read only what is new since the
   * last; `unknown` reads every list in full (up to its page limit) on every run.
   */
  RECONCILE_LIST_ORDER: z.enum(LIST_ORDERS).default(DEFAULT_LIST_ORDER),
});

export const PartnerApiEnvSchema = z.object({
  PARTNER_API_PORT: port.default(8789),
  /** The bearer token partner backends send (`Authorization: Bearer <token>`). */
  PARTNER_API_TOKEN: z.string().min(32, 'must be at least 32 characters: it is the only credential of the partner API'),
  /** How long `POST /journeys` waits for the service's KYC link before answering 202 without it (0 to 30). */
  PARTNER_API_SIGNUP_WAIT_SECONDS: z.coerce
    .number()
    .min(0)
    .max(SIGNUP_WAIT_MAX_SECONDS)
    .default(SIGNUP_WAIT_DEFAULT_SECONDS),
});

/**
 * Timings of the deposit workflows a process starts (workflows/schemas.ts), read by the worker
 * (reconciliation, ramp-event workflows) and the receiver (direct routing) alike: how long a deposit
 * waits for an event before asking the service (default 900), how long each step may take before it
 * parks (default 259200, three days), and the longest pause its polls back off to (default 21600, six
 * hours).
 */
export const DepositTimingsEnvSchema = z.object({
  DEPOSIT_POLL_INTERVAL_SECONDS: z.coerce.number().positive().optional(),
  DEPOSIT_STEP_DEADLINE_SECONDS: z.coerce.number().positive().optional(),
  DEPOSIT_POLL_BACKOFF_CAP_SECONDS: z.coerce.number().positive().optional(),
});

export const WorkerEnvSchema = z.object({
  /** Port of the worker's Prometheus endpoint; 0 turns it off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /**
   * The memory the worker keeps to, in MiB (docs/deploying/sizing.md): its V8 heap limit and its
   * workflow cache follow from it (workers/memory-budget.ts), and it is exported as
   * `rampflow_worker_memory_limit_bytes` for the alert on it. Give its container this much.
   */
  WORKER_MEMORY_MB: WorkerMemoryMbSchema,
  /**
   * How many workflows the worker keeps in memory between their tasks. Unset: as many as
   * WORKER_MEMORY_MB holds (workers/memory-budget.ts). More than that lets the worker outgrow its
   * budget; fewer saves memory at the price of replaying a workflow's history when it wakes.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).optional(),
  /**
   * The prebuilt workflow bundle to run (workers/workflow-bundle.ts). Unset: `npm run build`'s
   * dist/workflow-bundle.js, or, run from source without one, a bundle built at each start. Several
   * workers started from one checkout (the chaos run's) build one and share it, instead of spending
   * tens of CPU-seconds each on webpack at every start.
   */
  WORKER_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  /**
   * Calls per second to the ramp service for the whole partner, across every worker (README, "Calls
   * to the service are rate-limited"): the workers share it through the Temporal server, each keeping
   * to its share of it (workers/partner-rate.ts), lower while the service refuses calls, and the
   * server dispatches the service task queue's activities at half the rate. Give every worker the
   * same value. Unset: no limit (429s are still honoured).
   */
  RAMP_MAX_CALLS_PER_SECOND: z.coerce.number().positive().max(100_000).optional(),
  /**
   * How long a create the service keeps refusing with FAILED is retried before its workflow parks as
   * `Refused` for an operator (activities/creates.ts), counted from when the activity was first
   * scheduled. Unset: an hour (DEFAULT_REFUSED_CREATE_PARK_AFTER_MS).
   */
  RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS: z.coerce.number().min(0).max(86_400).optional(),
  ...DepositTimingsEnvSchema.shape,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * The deposit timings an environment overrides: the part of DepositTimings (workflows/common/timings.ts) the
 * DEPOSIT_* variables set, named here because config/ imports nothing of ours; whoever passes it on
 * as a Partial<DepositTimings> has the compiler check that the two agree.
 */
export interface DepositTimingsFromEnv {
  pollIntervalSeconds?: number;
  stepDeadlineSeconds?: number;
  pollBackoffCapSeconds?: number;
}

/** The deposit timings in the environment, as the options of whoever starts deposit workflows. */
export function depositTimingsFromEnv(config: z.output<typeof DepositTimingsEnvSchema>): DepositTimingsFromEnv {
  return {
    ...(config.DEPOSIT_POLL_INTERVAL_SECONDS !== undefined
      ? { pollIntervalSeconds: config.DEPOSIT_POLL_INTERVAL_SECONDS }
      : {}),
    ...(config.DEPOSIT_STEP_DEADLINE_SECONDS !== undefined
      ? { stepDeadlineSeconds: config.DEPOSIT_STEP_DEADLINE_SECONDS }
      : {}),
    ...(config.DEPOSIT_POLL_BACKOFF_CAP_SECONDS !== undefined
      ? { pollBackoffCapSeconds: config.DEPOSIT_POLL_BACKOFF_CAP_SECONDS }
      : {}),
  };
}

/**
 * The keys of the payload codec (codec/), as `<keyId>:<base64 of 32 random bytes>` separated by
 * commas. The first key encrypts; every key decrypts, so a key is rotated by putting a new one first
 * and dropping the old one only once no history that still matters was written with it.
 */
const PAYLOAD_KEY_ID = /^[A-Za-z0-9._-]{1,32}$/;
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const PAYLOAD_KEYS_FORMAT =
  'expected <keyId>:<base64 of 32 bytes>[,<keyId>:<base64>...]; generate one with: echo "k1:$(openssl rand -base64 32)"';

export interface PayloadKey {
  id: string;
  key: Buffer;
}

export const PayloadKeysSchema = z.string().transform((text, context): PayloadKey[] => {
  const keys: PayloadKey[] = [];
  for (const [index, entry] of text
    .split(',')
    .map((part) => part.trim())
    .entries()) {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    const encoded = entry.slice(separator + 1);
    // The key itself is never echoed: only its position and what is wrong with it.
    let problem: string | undefined;
    if (!PAYLOAD_KEY_ID.test(id)) problem = `key ${index + 1} has no valid id (letters, digits, . _ -, at most 32)`;
    else if (!BASE64_OF_32_BYTES.test(encoded)) problem = `key ${id} is not the base64 of 32 bytes`;
    else if (keys.some((known) => known.id === id)) problem = `key id ${id} appears twice`;
    if (problem) {
      context.addIssue({ code: 'custom', message: `${problem}; ${PAYLOAD_KEYS_FORMAT}` });
      return z.NEVER;
    }
    keys.push({ id, key: Buffer.from(encoded, 'base64') });
  }
  return keys;
});

/**
 * Worker Deployment Versioning (docs/deploying/versioning.md). A versioned worker serves only the
 * workflows of its own version: PINNED ones that started on it, AUTO_UPGRADE ones once its version is
 * current. The build ID defaults to a hash of the workflow bundle, so the same code always gets the
 * same ID and any change a new one.
 */
export const DeploymentEnvSchema = z.object({
  TEMPORAL_DEPLOYMENT_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'letters, digits, . _ - only')
    .default('rampflow'),
  /** Overrides the bundle hash, e.g. with a release tag; two different bundles must never share one. */
  TEMPORAL_WORKER_BUILD_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'letters, digits, . _ - only')
    .optional(),
  /** `false` runs an unversioned worker (tests, or a namespace that does not use versioning yet). */
  TEMPORAL_WORKER_VERSIONING: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export const PayloadEnvSchema = z.object({
  RAMPFLOW_PAYLOAD_KEYS: PayloadKeysSchema,
});

export const CodecServerEnvSchema = z.object({
  CODEC_SERVER_PORT: port.default(8234),
  /** The secret operators (and the Web UI, as a path segment) present to have payloads decoded. */
  CODEC_SERVER_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters: it is what lets a caller read customers' data"),
  /** Comma-separated origins of the Web UIs allowed to call the codec server from a browser. */
  CODEC_SERVER_CORS_ORIGINS: z
    .string()
    .default('http://127.0.0.1:8233,http://localhost:8233')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin.length > 0),
    ),
});

export const AttachmentEnvSchema = z.object({
  /** The folder the claim-check store keeps customers' documents in (attachments/). */
  RAMPFLOW_ATTACHMENTS_DIR: z.string().min(1).default('.data/attachments'),
});

/**
 * Where partner events are delivered: inline in PARTNER_EVENT_ENDPOINTS, or in the file
 * PARTNER_EVENT_ENDPOINTS_FILE names. Only the variables are named here (for ALL_ENV_SCHEMAS): the
 * endpoints' JSON is checked by partner-events/endpoints-env.ts, which extends these with the check,
 * because what an endpoint may subscribe to is the partner event catalogue's and config/ imports
 * nothing of ours. Processes parse that schema, not this one.
 */
export const PartnerEventEndpointVariablesSchema = z.object({
  PARTNER_EVENT_ENDPOINTS: z.string().optional(),
  PARTNER_EVENT_ENDPOINTS_FILE: z.string().optional(),
  /** How long one delivery attempt may take before it counts as failed. */
  PARTNER_EVENT_TIMEOUT_SECONDS: z.coerce.number().min(1).max(60).default(15),
  /** How long a failing endpoint's deliveries are retried (backing off to an hour) before they park; at least three days in production. */
  PARTNER_EVENT_RETRY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 60 * 60),
  /**
   * Whether endpoints may be on private, loopback or link-local addresses (partner-events/endpoint-addresses.ts).
   * Off in production: an endpoint URL naming an internal host is refused at start and at each connection.
   */
  PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

/**
 * Where partner events are kept (partner-events/open-store.ts): PostgreSQL when
 * PARTNER_EVENTS_DATABASE_URL is set (production, the cluster profile), else the embedded file log in
 * PARTNER_EVENTS_DIR (the dev stack: one writing process). The URL holds a password, so a bad one is
 * reported without its value.
 */
export const PartnerEventsEnvSchema = z.object({
  PARTNER_EVENTS_DATABASE_URL: z
    .string()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'expected postgres://user:password@host:5432/database')
    .optional(),
  PARTNER_EVENTS_DIR: z.string().min(1).default('.data/partner-events'),
  /** Connections each process keeps to PostgreSQL; appends are serialized, so a few are enough. */
  PARTNER_EVENTS_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(4),
});

export type TemporalEnv = z.infer<typeof TemporalEnvSchema>;
export type WebhookEnv = z.infer<typeof WebhookEnvSchema>;
export type PartnerEventsEnv = z.infer<typeof PartnerEventsEnvSchema>;

/** Every variable rampflow reads, for documentation and for checking deployment files. */
export const ALL_ENV_SCHEMAS = [
  TemporalEnvSchema,
  RampEnvSchema,
  WebhookEnvSchema,
  ReconcileEnvSchema,
  WorkerEnvSchema,
  DeploymentEnvSchema,
  PartnerApiEnvSchema,
  PayloadEnvSchema,
  CodecServerEnvSchema,
  AttachmentEnvSchema,
  PartnerEventEndpointVariablesSchema,
  PartnerEventsEnvSchema,
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the variables one schema names; throws a ConfigError with one line per bad variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const picked: Record<string, string | undefined> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = env[name];
    // An empty variable means "not set", as in most deployment tools.
    picked[name] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(picked);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    const reason = issue.code === 'invalid_type' && picked[name] === undefined ? 'is required' : issue.message;
    return `${name}: ${reason}`;
  });
  throw new ConfigError(problems);
}

/** TLS material for a Temporal connection, read from the files the environment names. */
export function temporalTls(
  env: TemporalEnv,
): { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer } | boolean {
  if (env.TEMPORAL_TLS_CERT && env.TEMPORAL_TLS_KEY) {
    return {
      clientCertPair: { crt: readFileSync(env.TEMPORAL_TLS_CERT), key: readFileSync(env.TEMPORAL_TLS_KEY) },
      ...(env.TEMPORAL_TLS_CA ? { serverRootCACertificate: readFileSync(env.TEMPORAL_TLS_CA) } : {}),
    };
  }
  if (env.TEMPORAL_TLS_CA) return { serverRootCACertificate: readFileSync(env.TEMPORAL_TLS_CA) };
  // An API key (Temporal Cloud) always travels over TLS.
  return env.TEMPORAL_API_KEY !== undefined;
}
