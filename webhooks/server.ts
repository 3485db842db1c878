/**
 * The webhook receiver's HTTP server (fastify):
 * - `POST /webhooks/ramp/:token`: the service's deliveries;
 * - `GET /healthz`: liveness (the process serves HTTP; Temporal's reachability shows in the 503s);
 * - `GET /metrics`: Prometheus metrics.
 *
 * Checks, in order: the source IP (the TCP peer, or behind a trusted proxy the address it saw; 403;
 * before the token, so a refused address learns nothing about the token), the path token compared in constant time (404, the same answer as for any unknown path),
 * the source address's rate (429 with Retry-After, before the body is read; webhooks/receiver-budget.ts),
 * the body cap (413) and JSON content type (415), the envelope `{event, payload: {id}}` (400). None of
 * these reaches Temporal. An event name rampflow does not know is counted
 * (rampflow_webhook_unknown_events_total) and dropped with 200: nothing starts, nothing parks. Then the
 * event is routed (200; 429 past the target's rate or the start rate; 503 when Temporal cannot be reached):
 * directly, by a signal to its target carrying the payload as a hint the target reads from the service
 * (webhooks/direct-route.ts, workflows/common/trust.ts), or, where
 * that path is unsure or `routing` is `workflow`, by the durable handoff to a ramp-event workflow,
 * whatever else the payload holds or lacks. Payload fields that do not match our schema are counted
 * (rampflow_webhook_payload_mismatches_total) and logged by path, never by value.
 *
 * Logs are one structured line per request with the route pattern, never the URL (it holds the token)
 * and never the body; with the source address, and on a 429 the rate that refused it.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { DepositTimings } from '../workflows/schemas';
import type { EventName } from '../ramp/events';
import type { RampEventTimings } from '../workflows/ramp-event/events';
import { parseDelivery, type ParsedDelivery } from './delivery';
import { routeDirectly, RoutingMemory, type DirectRouteOutcome } from './direct-route';
import { handOff, TemporalUnavailable } from './handoff';
import { StageAgeScan } from '../observability/stage-age-scan';
import { WebhookMetrics, type HandoffResult, type Outcome } from './metrics';
import { DEFAULT_RECEIVER_BUDGET, OverBudget, ReceiverBudget, type ReceiverBudgetOptions } from './receiver-budget';
import type { WebhookRouting } from '../config/webhook-routings';
import { tokenMatches } from '../config/secret-token';
import { sourceIpPolicy, trustedProxies } from './source-ip';

export const WEBHOOK_ROUTE = '/webhooks/ramp/:token';

/** A payload is one detail record (a few kilobytes); anything far larger is not a delivery. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export interface WebhookServerOptions {
  token: string;
  /** WEBHOOK_ALLOWED_IPS entries (addresses or CIDR ranges); empty allows any source. */
  allowedIps: string[];
  /** WEBHOOK_TRUSTED_PROXIES entries: peers whose X-Forwarded-For names the source (webhooks/source-ip.ts); none when omitted. */
  trustedProxies?: string[];
  client: Client;
  taskQueue: string;
  logger: Logger;
  bodyLimitBytes?: number;
  /** How long the handoff may wait for Temporal before answering 503 (default 10 s). */
  handoffTimeoutMs?: number;
  /** Passed to every ramp-event workflow; production defaults when omitted (tests pass seconds). */
  eventTimings?: Partial<RampEventTimings>;
  /** `direct` (default): signal the target from the payload where it can; `workflow`: every delivery starts a ramp-event workflow. */
  routing?: WebhookRouting;
  /** The timings of deposit workflows a direct route starts (the worker's DEPOSIT_* settings; production defaults when omitted). */
  depositTimings?: Partial<DepositTimings>;
  /**
   * Every this many seconds, scan visibility for the longest waiter at each stage and serve
   * `rampflow_stage_oldest_waiter_seconds` on GET /metrics (observability/stage-age-scan.ts); 0 or
   * omitted: no scan (STAGE_AGE_SCAN_SECONDS, 60 by default, in the receiver process).
   */
  stageAgeScanSeconds?: number;
  /** The receiver's rates (WEBHOOK_* rates in config/env.ts); production defaults for what is omitted. */
  budget?: Partial<ReceiverBudgetOptions>;
}

const NOT_FOUND_BODY = { error: 'not found' };

/** What a request's log line says beyond its route and status. */
interface LoggedOutcome {
  outcome: Outcome;
  event?: string;
  payloadId?: string;
  routed?: HandoffResult;
  fields?: string[];
  /** A 429's: the rate that refused it. */
  budget?: OverBudget['budget'];
}

export function buildWebhookServer(options: WebhookServerOptions): { app: FastifyInstance; metrics: WebhookMetrics } {
  const metrics = new WebhookMetrics();
  const allowedSources = sourceIpPolicy(options.allowedIps);
  const outcomes = new WeakMap<FastifyRequest, LoggedOutcome>();
  const handoff = {
    client: options.client,
    taskQueue: options.taskQueue,
    timeoutMs: options.handoffTimeoutMs ?? 10_000,
  };
  const budget = new ReceiverBudget({ ...DEFAULT_RECEIVER_BUDGET, ...options.budget });
  const router = {
    client: options.client,
    taskQueue: options.taskQueue,
    memory: new RoutingMemory(),
    budget,
    depositTimings: options.depositTimings,
  };
  const routing = options.routing ?? 'direct';

  /**
   * Routes an accepted delivery: directly where the payload allows, else through its ramp-event
   * workflow. An unknown event name is dropped: a workflow for it could only park it, and parking is
   * what a leaked token must not be able to buy.
   */
  async function route(delivery: Extract<ParsedDelivery, { ok: true }>, source: string): Promise<HandoffResult> {
    const { input } = delivery;
    if (input.resource === undefined) {
      metrics.countUnknownEvent();
      return 'dropped';
    }
    if (routing === 'workflow') {
      metrics.countWorkflowRoute('configured');
    } else {
      let direct: DirectRouteOutcome;
      try {
        direct = await options.client.connection.withDeadline(Date.now() + handoff.timeoutMs, () =>
          routeDirectly(router, source, input.event as EventName, input.key, delivery.matchedPayload),
        );
      } catch (error) {
        if (error instanceof OverBudget) throw error;
        throw new TemporalUnavailable(error);
      }
      if (direct.kind !== 'needs-workflow') return direct.kind;
      metrics.countWorkflowRoute(direct.reason);
    }
    budget.workflowStart(source);
    return handOff(handoff, delivery.workflowId, input);
  }

  const overBudget = (
    request: FastifyRequest,
    reply: FastifyReply,
    error: OverBudget,
    about: { event?: string; payloadId?: string } = {},
  ) => {
    metrics.countOverBudget(error.budget);
    void reply.header('retry-after', String(error.retryAfterSeconds));
    return finish(
      request,
      reply,
      429,
      'over_budget',
      { error: 'too many requests' },
      { ...about, budget: error.budget },
    );
  };

  // fastify's own logger would print request URLs, which carry the token; we log ourselves below.
  // request.ip is the source every check and budget uses: the TCP peer, or what a trusted proxy saw.
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    trustProxy: trustedProxies(options.trustedProxies ?? []),
  });
  // JSON only: fastify also parses text/plain by default.
  app.removeContentTypeParser('text/plain');

  const finish = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    outcome: Outcome,
    body: unknown,
    extra: Omit<LoggedOutcome, 'outcome'> = {},
  ) => {
    outcomes.set(request, { outcome, ...extra });
    return reply.code(status).send(body);
  };

  app.setNotFoundHandler((request, reply) => finish(request, reply, 404, 'not_found', NOT_FOUND_BODY));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Errors from body parsing, raised before the handler runs.
    if (error.statusCode === 413) return finish(request, reply, 413, 'too_large', { error: 'payload too large' });
    if (error.statusCode === 415)
      return finish(request, reply, 415, 'unsupported_media_type', { error: 'expected application/json' });
    if (error.statusCode === 400)
      return finish(
        request,
        reply,
        400,
        'invalid',
        { error: 'malformed JSON body' },
        { fields: [error.code ?? 'body'] },
      );
    options.logger.error(
      { err: { type: error.name, code: error.code, message: error.message } },
      'webhook receiver error',
    );
    return finish(request, reply, 500, 'error', { error: 'internal error' });
  });

  app.addHook('onResponse', async (request, reply) => {
    const recorded = outcomes.get(request);
    const outcome = recorded?.outcome ?? 'other';
    metrics.countRequest(outcome);
    if (outcome === 'other') return;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      outcome,
      ms: Math.round(reply.elapsedTime),
      ...(recorded?.event ? { event: recorded.event, payloadId: recorded.payloadId } : {}),
      ...(recorded?.routed ? { routed: recorded.routed } : {}),
      ...(recorded?.fields ? { fields: recorded.fields } : {}),
      ...(recorded?.budget ? { budget: recorded.budget } : {}),
      // The TCP peer (the service's address, a proxy's, or a forger's; never a customer's): whose budget a request spent.
      source: request.ip,
    };
    if (reply.statusCode >= 500) options.logger.warn(line, 'webhook');
    else options.logger.info(line, 'webhook');
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );

  app.post<{ Params: { token?: string } }>(
    WEBHOOK_ROUTE,
    {
      // Runs before the body is read, so a refused caller cannot make us parse anything.
      onRequest: async (request, reply) => {
        if (!allowedSources.allows(request.ip)) return finish(request, reply, 403, 'forbidden', { error: 'forbidden' });
        if (!tokenMatches(request.params.token, options.token))
          return finish(request, reply, 404, 'not_found', NOT_FOUND_BODY);
        try {
          budget.fromSource(request.ip);
        } catch (error) {
          if (error instanceof OverBudget) return overBudget(request, reply, error);
          throw error;
        }
        return undefined;
      },
    },
    async (request, reply) => {
      const delivery = parseDelivery(request.body, options.eventTimings);
      if (!delivery.ok)
        return finish(
          request,
          reply,
          400,
          'invalid',
          { error: delivery.reason, fields: delivery.fields },
          { fields: delivery.fields },
        );
      const { input, mismatchedFields } = delivery;
      const about = {
        event: input.deliveredAs ? `${input.event} (as ${input.deliveredAs})` : input.event,
        payloadId: input.payloadId,
      };
      if (mismatchedFields.length > 0) {
        metrics.countPayloadMismatch(input.event);
        options.logger.info(
          { ...about, fields: mismatchedFields },
          'webhook payload does not match our schema; handing it over as a hint',
        );
      }
      const started = performance.now();
      try {
        const result = await route(delivery, request.ip);
        metrics.observeHandoff(result, (performance.now() - started) / 1000);
        // A coalesced hint is a copy of one just sent; a dropped (unknown) event is answered like any other, so the service does not retry it.
        const status =
          result === 'duplicate' || result === 'coalesced'
            ? 'duplicate'
            : result === 'dropped'
              ? 'ignored'
              : 'accepted';
        return finish(request, reply, 200, status, { status }, { ...about, routed: result });
      } catch (error) {
        if (error instanceof OverBudget) return overBudget(request, reply, error, about);
        if (!(error instanceof TemporalUnavailable)) throw error;
        metrics.observeHandoff('unavailable', (performance.now() - started) / 1000);
        options.logger.warn(
          { ...about, reason: error.message },
          'Temporal unavailable; answering 503 so the service retries',
        );
        return finish(request, reply, 503, 'unavailable', { error: 'temporarily unavailable' }, about);
      }
    },
  );

  if (options.stageAgeScanSeconds) {
    const scan = new StageAgeScan({
      client: options.client,
      taskQueue: options.taskQueue,
      registry: metrics.registry,
      onError: ({ workflowType, stage, message }) =>
        options.logger.warn(
          { workflowType, stage, reason: message },
          'stage age scan: a stage could not be read; its last oldest stands',
        ),
    });
    const stop = scan.start(options.stageAgeScanSeconds);
    app.addHook('onClose', async () => stop());
  }
  return { app, metrics };
}
