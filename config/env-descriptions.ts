/**
 * What each environment variable of config/env.ts is for, who reads it, and (where the schema's own
 * default does not say it) what an unset variable means. docs/reference/environment.md is generated
 * from the schemas and this table (`npm run docs:generate`). The type makes the table name every
 * variable the schemas read and no other, so a variable cannot be added without its description.
 * Links are relative to docs/reference/.
 */
import type { z } from 'zod';
import type { ALL_ENV_SCHEMAS } from './env';

type VariablesOf<S> = S extends z.ZodObject<infer Shape> ? keyof Shape & string : never;
/** Every variable rampflow reads. */
export type EnvVariable = VariablesOf<(typeof ALL_ENV_SCHEMAS)[number]>;

export interface EnvDescription {
  /** The processes and commands that read it. */
  readBy: string;
  description: string;
  /** What an unset variable means, where the schema's default is not the whole story (or there is none). */
  unset?: string;
}

const TEMPORAL_READERS = 'worker, webhooks, partner-api, journey/deposit/payout/events/status/versions CLI, client';

export const ENV_DESCRIPTIONS: Record<EnvVariable, EnvDescription> = {
  TEMPORAL_ADDRESS: { readBy: TEMPORAL_READERS, description: 'host:port of the Temporal frontend' },
  TEMPORAL_NAMESPACE: { readBy: TEMPORAL_READERS, description: 'the namespace of journeys, deposits and events' },
  TEMPORAL_TASK_QUEUE: {
    readBy: TEMPORAL_READERS,
    description:
      'the task queue the worker polls and clients start on (the service activities run on `<TEMPORAL_TASK_QUEUE>-service`)',
  },
  TEMPORAL_API_KEY: { readBy: TEMPORAL_READERS, description: 'Temporal Cloud API key; turns TLS on' },
  TEMPORAL_TLS_CERT: {
    readBy: TEMPORAL_READERS,
    description: 'client certificate file for mTLS (self-hosted or Cloud), with `TEMPORAL_TLS_KEY`',
  },
  TEMPORAL_TLS_KEY: { readBy: TEMPORAL_READERS, description: 'client key file for mTLS, with `TEMPORAL_TLS_CERT`' },
  TEMPORAL_TLS_CA: {
    readBy: TEMPORAL_READERS,
    description: "CA bundle when the server's certificate is not from a public CA",
  },
  RAMP_BASE_URL: {
    readBy: 'worker, `api`, `webhooks register`, `probe`',
    description: "the ramp service's base URL (http or https)",
  },
  RAMP_API_KEY: { readBy: 'worker, `api`, `webhooks register`, `probe`', description: "the partner's signing key" },
  RAMP_API_SECRET: {
    readBy: 'worker, `api`, `webhooks register`, `probe`',
    description: "the partner's signing secret; never logged",
  },
  RAMP_ASSUMPTIONS_FILE: {
    readBy: 'worker, `webhooks serve`, `webhooks reconcile`, `webhooks register`, `api`, `probe`',
    description:
      "a JSON file overriding what rampflow assumes of the service where a deployment's service differs; `rampflow probe` prints the keys to put there. Its keys are listed [below](#ramp_assumptions_file-keys); a bad file stops the process at start naming the key ([Going live](../deploying/going-live.md))",
    unset: 'the assumptions of `ramp/assumptions.ts`',
  },
  WEBHOOK_PORT: { readBy: '`webhooks serve`', description: 'port the receiver listens on (all interfaces)' },
  WEBHOOK_TOKEN: {
    readBy: '`webhooks serve`, `webhooks register`',
    description:
      'secret path segment: the service delivers to `POST /webhooks/ramp/<WEBHOOK_TOKEN>`; at least 16 characters',
  },
  WEBHOOK_ALLOWED_IPS: {
    readBy: '`webhooks serve`',
    description:
      'comma-separated addresses or CIDR ranges allowed to deliver, checked against the source address (the TCP peer, or behind a proxy in `WEBHOOK_TRUSTED_PROXIES` the address it saw)',
    unset: 'any source',
  },
  WEBHOOK_TRUSTED_PROXIES: {
    readBy: '`webhooks serve`',
    description:
      'comma-separated addresses or CIDR ranges of the reverse proxies or load balancers in front of the receiver: from these peers the source address is read from `X-Forwarded-For` (right to left, past trusted proxies only), so the allow list and the per-source budget tell the service from a forger; a peer not listed cannot name its own source',
    unset: 'none: the TCP peer is the source',
  },
  WEBHOOK_PUBLIC_URL: {
    readBy: '`webhooks register`',
    description: 'the public https URL registered with the service when `--url` is not given',
  },
  WEBHOOK_ROUTING: {
    readBy: '`webhooks serve`',
    description:
      "`direct`: signal each event's target with the payload as a hint where possible (the target reads the record from the service); `workflow`: every delivery goes through a ramp-event workflow that re-reads the record ([Direct routing](../deploying/webhooks.md#direct-routing-webhook_routingdirect))",
  },
  RECONCILE_LIST_ORDER: {
    readBy: '`webhooks serve` (the schedule), `webhooks reconcile`, `probe`',
    description:
      'how the service orders its customer, deposit and trade lists (the interface does not say): `newest-first` lets each scheduled reconciliation read only what is new since the last; `unknown` reads every list, up to 100 pages from both ends, on every run ([Reconciliation](../deploying/webhooks.md#reconciliation))',
  },
  STAGE_AGE_SCAN_SECONDS: {
    readBy: '`webhooks serve`, `dev`',
    description:
      'how often the receiver scans visibility for the longest waiter at each stage (`rampflow_stage_oldest_waiter_seconds`, alerts `RampflowStageOverSla` and the parked alerts): 15 visibility calls a scan; `0` turns it off ([stage SLAs](../operating/stage-sla.md))',
  },
  WEBHOOK_SOURCE_PER_SECOND: {
    readBy: '`webhooks serve`',
    description:
      "deliveries a second one source address (the TCP peer) may keep up; beyond it and its burst the receiver answers `429` with `Retry-After` ([The receiver's budget](../deploying/webhooks.md#the-receivers-budget))",
  },
  WEBHOOK_SOURCE_BURST: {
    readBy: '`webhooks serve`',
    description:
      'deliveries one source address may send at once (the service delivers what is due once a minute, in bursts)',
  },
  WEBHOOK_TARGET_PER_MINUTE: {
    readBy: '`webhooks serve`',
    description:
      'hints a minute the receiver signals to one journey or deposit workflow for deliveries from one source address; beyond it and its burst, `429`',
  },
  WEBHOOK_TARGET_BURST: {
    readBy: '`webhooks serve`',
    description: 'hints one target may receive at once from one source address',
  },
  WEBHOOK_STARTS_PER_SECOND: {
    readBy: '`webhooks serve`',
    description:
      'workflow starts a second the receiver makes for deliveries from one source address, ramp-event starts and deposit signal-with-starts together; beyond it and its burst, `429`',
  },
  WEBHOOK_STARTS_BURST: {
    readBy: '`webhooks serve`',
    description: 'workflow starts the receiver may make at once for one source address',
  },
  WEBHOOK_TOTAL_STARTS_PER_SECOND: {
    readBy: '`webhooks serve`',
    description:
      'workflow starts a second the receiver makes across all source addresses; beyond it and its burst, `429`',
  },
  WEBHOOK_TOTAL_STARTS_BURST: {
    readBy: '`webhooks serve`',
    description: 'workflow starts the receiver may make at once across all source addresses',
  },
  PARTNER_API_PORT: { readBy: '`partner-api`', description: 'port the partner API listens on' },
  PARTNER_API_TOKEN: {
    readBy: '`partner-api`',
    description: 'the bearer token partner backends send; at least 32 characters',
  },
  PARTNER_API_SIGNUP_WAIT_SECONDS: {
    readBy: '`partner-api`',
    description:
      "how long `POST /journeys` waits for the service's KYC link before answering `202` without it (0 to 30)",
  },
  PARTNER_EVENT_ENDPOINTS: {
    readBy: 'worker',
    description:
      'a JSON array of `{name, url, secrets, events?}`: where partner events are delivered, signed per Standard Webhooks ([Configuring endpoints](../integrating/partner-events.md#configuring-endpoints))',
    unset: 'no endpoints: partners pull',
  },
  PARTNER_EVENT_ENDPOINTS_FILE: {
    readBy: 'worker',
    description:
      "the same JSON in a file, which keeps the `whsec_` secrets out of the environment's listings; set one of the two",
  },
  PARTNER_EVENT_TIMEOUT_SECONDS: {
    readBy: 'worker',
    description: 'how long one delivery attempt may take before it counts as failed (1 to 60)',
  },
  PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: {
    readBy: 'worker',
    description:
      '`true` lets endpoint URLs name private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback or link-local (169.254/16, fe80::/10) hosts; otherwise such a URL is refused at start, and a host name that resolves to such an address is refused at each connection ([Configuring endpoints](../integrating/partner-events.md#configuring-endpoints)). The local dev stack sets it for its loopback endpoint',
  },
  PARTNER_EVENT_RETRY_SECONDS: {
    readBy: 'worker',
    description:
      "how long a failing endpoint's deliveries are retried (3 days by default), backing off from 10 s to an hour (in proportion for shorter periods), before they park for an operator",
  },
  WORKER_METRICS_PORT: {
    readBy: 'worker, `dev`, `status`',
    description:
      "Prometheus endpoint port; `0` turns it off. `rampflow dev` serves the worker's there on 127.0.0.1; `rampflow status` reads `http://127.0.0.1:<port>/metrics` when given no `--metrics-url`",
  },
  WORKER_MEMORY_MB: {
    readBy: 'worker',
    description:
      'the memory the worker keeps to, in MiB: its V8 heap limit and workflow cache follow from it, exported as `rampflow_worker_memory_limit_bytes` for the memory alert; give its container as much ([sizing](../deploying/sizing.md))',
  },
  WORKER_MAX_CACHED_WORKFLOWS: {
    readBy: 'worker',
    description:
      "workflows kept in memory between tasks; more than the budget holds lets the worker outgrow it, fewer saves memory at the price of replaying a workflow's history when it wakes ([sizing](../deploying/sizing.md))",
    unset: 'what `WORKER_MEMORY_MB` holds',
  },
  WORKER_WORKFLOW_BUNDLE: {
    readBy: 'worker',
    description:
      "the file of a prebuilt workflow bundle to run (`tsx workers/workflow-bundle.ts <out.js>` writes one); the worker refuses to start when it names no file, and, run from source, rebuilds one older than `workflows/` as it does `npm run build`'s",
    unset: "`npm run build`'s `dist/workflow-bundle.js`; run from source without one, a bundle built at each start",
  },
  RAMP_MAX_CALLS_PER_SECOND: {
    readBy: 'worker',
    description:
      'calls per second to the ramp service for the whole partner, whatever the number of workers (they share it through the Temporal server, and bring it down while the service answers 429); give every worker the same value ([rate limits](../deploying/rate-limits.md))',
    unset: 'no limit (429s are still honoured)',
  },
  RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS: {
    readBy: 'worker',
    description:
      "how long a create the service keeps refusing (`FAILED`) is retried, from the activity's first schedule, before its workflow parks as `Refused` for an operator's `retry` or `cancel` ([failures](../integrating/journey.md#waits-timings-and-failures))",
    unset: '3600 (an hour)',
  },
  DEPOSIT_POLL_INTERVAL_SECONDS: {
    readBy: 'worker, `webhooks serve`',
    description: 'how long a deposit workflow this process starts waits for an event before asking the service',
  },
  DEPOSIT_STEP_DEADLINE_SECONDS: {
    readBy: 'worker, `webhooks serve`',
    description: 'how long each step of such a deposit may take before it parks',
  },
  DEPOSIT_POLL_BACKOFF_CAP_SECONDS: {
    readBy: 'worker, `webhooks serve`',
    description: 'the longest pause between two polls of such a deposit (they double from the poll interval up to it)',
  },
  LOG_LEVEL: {
    readBy: 'worker, webhooks, partner-api, codec-server',
    description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  },
  TEMPORAL_DEPLOYMENT_NAME: {
    readBy: 'worker, `versions`',
    description: 'the Worker Deployment the worker joins ([Changing workflow code](../deploying/versioning.md))',
  },
  TEMPORAL_WORKER_BUILD_ID: {
    readBy: 'worker',
    description: "the worker's build ID; set it only to a name that no other bundle ever gets",
    unset: "the workflow bundle's hash",
  },
  TEMPORAL_WORKER_VERSIONING: {
    readBy: 'worker',
    description: '`false` runs an unversioned worker (outside any deployment)',
  },
  RAMPFLOW_PAYLOAD_KEYS: {
    readBy: 'worker, webhooks, partner-api, the Temporal CLI commands, client, codec-server',
    description:
      '`<keyId>:<base64 of 32 bytes>[,...]`: the first key encrypts every payload, all of them decrypt ([Customer data in Temporal](../deploying/customer-data-and-keys.md))',
  },
  CODEC_SERVER_PORT: { readBy: '`codec-server`', description: 'port the codec server listens on' },
  CODEC_SERVER_TOKEN: {
    readBy: '`codec-server`',
    description:
      'what a caller presents to have payloads decrypted: `Authorization: Bearer <token>`, or the path segment `/<token>/decode`; at least 16 characters',
  },
  CODEC_SERVER_CORS_ORIGINS: {
    readBy: '`codec-server`',
    description: 'the Web UI origins a browser may call it from (comma-separated)',
  },
  RAMPFLOW_ATTACHMENTS_DIR: {
    readBy: 'worker, `deposit attach`, client',
    description:
      'the folder of the attachment store; every process that submits or sends documents must see the same one',
  },
  PARTNER_EVENTS_DATABASE_URL: {
    readBy: 'worker, `partner-api`',
    description:
      '`postgres://user:password@host:5432/database`: keep partner events in PostgreSQL; the database must exist, the tables are created ([where partner events are kept](../integrating/http-api.md#partner-events-where-they-are-kept-and-reading-them-by-cursor))',
    unset: 'the embedded file log in `PARTNER_EVENTS_DIR`',
  },
  PARTNER_EVENTS_DIR: {
    readBy: 'worker, `partner-api`',
    description:
      'the folder of the embedded event log when no database URL is set; one worker writes it, the partner API reads it (both must see the same folder). `rampflow dev`, when it is not set, keeps its log beside its `--db-file`',
  },
  PARTNER_EVENTS_DATABASE_POOL_SIZE: {
    readBy: 'worker, `partner-api`',
    description: 'connections each process keeps to that PostgreSQL (1 to 100)',
  },
};
