/**
 * The partner API's HTTP server (fastify), for partner backends in any language:
 * - `POST /journeys`: start the customer's journey on signup, idempotent on customer.externalId, and
 *   answer in the same round trip its stage and, when the service gives it in time, the KYC link;
 * - `GET /journeys/{externalId}`: the journey's state (or how it ended, decoded, when it failed); `GET /journeys/{externalId}/deposits`: its
 *   deposits, a page at a time;
 * - `POST /journeys/{externalId}/retry | cancel | close`: the operator actions;
 * - `GET /events?after=&limit=`: partner events by cursor, and `GET /journeys/{externalId}/timeline`:
 *   one customer's events, both read from the partner event store (not Temporal), opened as a reader;
 * - `GET /openapi.json` (the document generated from the schemas) and `GET /healthz`, without a token.
 *
 * Every other request needs `Authorization: Bearer <token>` (compared in constant time). Requests are
 * validated with the workflows' own zod schemas (400 naming every bad field) before anything reaches
 * Temporal; Temporal is reached through the client library, and when it cannot be reached or does not
 * answer in time the API answers 503, so the partner retries; so it does while the event store cannot
 * be reached. Logs are one line per request with the
 * route pattern and status, never the body, the URL or the token.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { isGrpcServiceError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { parseStream, PartnerEventDeliveries } from '../client/partner-event-deliveries';
import {
  endJson,
  type RampflowClient,
  RampflowInputError,
  RampflowNotFoundError,
  RampflowUpdateRefusedError,
  RampflowWorkflowEndedError,
  SIGNUP_GRACE_MS,
} from '../client';
import { tokenMatches } from '../config/secret-token';
import { EndRequestSchema, JourneyInputSchema, RetryRequestSchema } from '../workflows/schemas';
import { SIGNUP_WAIT_DEFAULT_SECONDS } from '../config/signup-wait';
import { type StartInputIssue, startInputIssues } from '../workflows/common/checks';
import { PartnerEventCursorError, PartnerEventStoreUnavailableError } from '../partner-events/store-errors';
import type { PartnerEventStore } from '../partner-events/store';
import { buildOpenApiDocument } from './openapi';
import {
  type DepositItemSchema,
  DepositPageQuerySchema,
  type EndedJourneySchema,
  EventPageQuerySchema,
  type EventPageSchema,
  ExternalIdParamsSchema,
  type ParkedDeliveriesSchema,
  ResendRequestSchema,
  type ResendResultSchema,
  type SignupAnswerSchema,
  TimelineQuerySchema,
  type TimelineSchema,
} from './schemas';

export interface PartnerApiOptions {
  /** The bearer token partner backends send (PARTNER_API_TOKEN). */
  token: string;
  rampflow: RampflowClient;
  /**
   * Where partner events are read from (partner-events/open-store.ts, as a reader). Absent: the event
   * routes are not served (404), for a process that keeps no events.
   */
  events?: PartnerEventStore;
  logger: Logger;
  /** How long one call to Temporal may take before the API answers 503 (default 10 s). */
  temporalTimeoutMs?: number;
  /**
   * How long `POST /journeys` waits for the KYC link before answering 202 without it
   * (PARTNER_API_SIGNUP_WAIT_SECONDS, default 5); its call to Temporal may take this much longer.
   */
  signupWaitSeconds?: number;
  /** A journey's input is a few hundred bytes; corrected input no more. */
  bodyLimitBytes?: number;
}

/** Routes anyone may call: the API's own description and liveness. */
const PUBLIC_ROUTES = new Set(['/openapi.json', '/healthz']);

// gRPC codes meaning "Temporal is not there or not answering now": worth a retry by the partner.
const GRPC_UNAVAILABLE = new Set([4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */]);

/** 400: the request names bad fields. */
class BadRequest extends Error {
  constructor(readonly issues: StartInputIssue[]) {
    super('invalid request');
  }
}

export function isTemporalUnavailable(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (isGrpcServiceError(cause) && GRPC_UNAVAILABLE.has(cause.code)) return true;
  }
  return false;
}

function parsed<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new BadRequest(
    startInputIssues(result.error).map((issue) => ({
      ...issue,
      path: prefix && issue.path === '(input)' ? prefix : issue.path,
    })),
  );
}

/** The client's own input errors read `path: message`. */
const toIssue = (line: string): StartInputIssue => {
  const at = line.indexOf(': ');
  return at === -1 ? { path: '(input)', message: line } : { path: line.slice(0, at), message: line.slice(at + 2) };
};

export function buildPartnerApi(options: PartnerApiOptions): FastifyInstance {
  const { rampflow, logger } = options;
  const timeoutMs = options.temporalTimeoutMs ?? 10_000;
  const signupWaitSeconds = options.signupWaitSeconds ?? SIGNUP_WAIT_DEFAULT_SECONDS;
  const openApi = buildOpenApiDocument();
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimitBytes ?? 64 * 1024, return503OnClosing: true });
  app.removeContentTypeParser('text/plain');

  /** One call to Temporal, given up after the timeout (answered 503 like Temporal being away). */
  const temporal = <T>(call: () => Promise<T>, extraMs = 0): Promise<T> =>
    rampflow.temporal.connection.withDeadline(Date.now() + timeoutMs + extraMs, call);
  const externalIdOf = (request: FastifyRequest) => parsed(ExternalIdParamsSchema, request.params).externalId;

  app.addHook('onRequest', async (request, reply) => {
    if (PUBLIC_ROUTES.has(request.routeOptions.url ?? '')) return;
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    if (!tokenMatches(token, options.token)) {
      await reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'a valid bearer token is required' });
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (reply.statusCode >= 500) logger.warn(line, 'partner api');
    else logger.info(line, 'partner api');
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof BadRequest) return reply.code(400).send({ error: error.message, issues: error.issues });
    if (error instanceof RampflowInputError)
      return reply.code(400).send({ error: 'invalid request', issues: error.issues.map(toIssue) });
    if (error instanceof RampflowNotFoundError) return reply.code(404).send({ error: error.message });
    if (error instanceof PartnerEventCursorError)
      return reply.code(400).send({ error: 'invalid request', issues: [{ path: 'after', message: error.message }] });
    if (error instanceof RampflowUpdateRefusedError) return reply.code(409).send({ error: error.message });
    if (error instanceof PartnerEventStoreUnavailableError) {
      // The reason is a network error code or PostgreSQL's own words: never the URL or an event.
      logger.warn(
        { route: request.routeOptions.url, reason: error.message },
        'partner event store unavailable; answering 503',
      );
      return reply.code(503).header('retry-after', '5').send({ error: 'temporarily unavailable' });
    }
    if (isTemporalUnavailable(error)) {
      logger.warn({ route: request.routeOptions.url, reason: error.message }, 'Temporal unavailable; answering 503');
      return reply.code(503).header('retry-after', '5').send({ error: 'temporarily unavailable' });
    }
    // Raised by fastify before a handler runs: malformed JSON, too large, not JSON.
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return reply.code(error.statusCode).send({ error: error.message });
    logger.error(
      { err: { type: error.name, code: error.code, message: error.message }, route: request.routeOptions.url },
      'partner api error',
    );
    return reply.code(500).send({ error: 'internal error' });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/openapi.json', async () => openApi);

  app.post('/journeys', async (request, reply) => {
    const input = parsed(JourneyInputSchema, request.body);
    const { externalId } = input.customer;
    // signUp bounds its own wait (the wait plus a moment); the rest of the timeout is for the calls around it.
    const signup = await temporal(
      () => rampflow.signUp(input, { waitSeconds: signupWaitSeconds }),
      signupWaitSeconds * 1000 + SIGNUP_GRACE_MS,
    );
    const stateUrl = `/journeys/${encodeURIComponent(externalId)}`;
    const { stage, kycLink } = signup;
    const answer: z.input<typeof SignupAnswerSchema> = {
      externalId,
      workflowId: signup.handle.workflowId,
      stateUrl,
      ...(stage ? { stage } : {}),
      ...(kycLink ? { kycLink } : {}),
    };
    // 201 when the answer carries the KYC link; 202 (as before this answer existed) when it is still to come.
    return reply
      .code(kycLink ? 201 : 202)
      .header('location', stateUrl)
      .send(answer);
  });

  app.get('/journeys/:externalId', async (request) => {
    const externalId = externalIdOf(request);
    try {
      return await temporal(() => rampflow.getJourney(externalId));
    } catch (error) {
      // Ended without completing: how, decoded (client/workflow-end.ts), rather than a state it no longer has.
      if (!(error instanceof RampflowWorkflowEndedError)) throw error;
      const ended: z.input<typeof EndedJourneySchema> = {
        externalId,
        ...(error.stage ? { stage: error.stage } : {}),
        ...endJson(error.end),
      };
      return ended;
    }
  });

  app.get('/journeys/:externalId/deposits', async (request) => {
    const externalId = externalIdOf(request);
    const query = parsed(DepositPageQuerySchema, request.query);
    const page = await temporal(() =>
      rampflow.listDepositsPage(
        { externalId, ...(query.stage ? { stage: query.stage } : {}) },
        {
          ...(query.pageSize ? { pageSize: query.pageSize } : {}),
          ...(query.nextPageToken ? { nextPageToken: query.nextPageToken } : {}),
        },
      ),
    );
    const deposits: z.input<typeof DepositItemSchema>[] = page.deposits.map((deposit) => ({
      depositId: deposit.depositId,
      workflowId: deposit.workflowId,
      ...(deposit.stage ? { stage: deposit.stage } : {}),
      ...(deposit.externalId ? { externalId: deposit.externalId } : {}),
      ...(deposit.customerId ? { customerId: deposit.customerId } : {}),
      status: deposit.status,
      startTime: deposit.startTime.toISOString(),
      ...(deposit.closeTime ? { closeTime: deposit.closeTime.toISOString() } : {}),
    }));
    return { deposits, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  });

  app.post('/journeys/:externalId/retry', async (request) => {
    const externalId = externalIdOf(request);
    const { correctedInput } = parsed(RetryRequestSchema, request.body ?? {});
    return temporal(() => rampflow.retry(externalId, correctedInput));
  });

  app.post('/journeys/:externalId/cancel', async (request) => {
    const externalId = externalIdOf(request);
    const { reason } = parsed(EndRequestSchema, request.body ?? {});
    return temporal(() => rampflow.cancel(externalId, reason));
  });

  app.post('/journeys/:externalId/close', async (request) => {
    const externalId = externalIdOf(request);
    const { reason } = parsed(EndRequestSchema, request.body ?? {});
    return temporal(() => rampflow.closeCustomer(externalId, reason));
  });

  const deliveries = new PartnerEventDeliveries(rampflow.temporal, rampflow.taskQueue);
  app.get('/partner-events/parked', async (): Promise<z.input<typeof ParkedDeliveriesSchema>> => ({
    streams: await temporal(() => deliveries.parked()),
  }));
  app.post('/partner-events/resend', async (request): Promise<z.input<typeof ResendResultSchema>> => {
    const { stream, endpoint } = parsed(ResendRequestSchema, request.body ?? {});
    return temporal(() => deliveries.resend(parseStream(stream), endpoint));
  });

  const { events } = options;
  if (events) {
    app.get('/events', async (request): Promise<z.input<typeof EventPageSchema>> => {
      const query = parsed(EventPageQuerySchema, request.query);
      return events.after(query.after, query.limit);
    });

    // Read from the store alone: a customer without events, or unknown, has an empty timeline (a
    // journey's first event may still be on its way), and the timeline answers while Temporal is away.
    app.get('/journeys/:externalId/timeline', async (request): Promise<z.input<typeof TimelineSchema>> => {
      const externalId = externalIdOf(request);
      const query = parsed(TimelineQuerySchema, request.query);
      const timeline = await events.stream(`customer/${externalId}`, query.afterSequence, query.limit);
      return { events: timeline, nextAfterSequence: timeline.at(-1)?.sequence ?? query.afterSequence };
    });
  }

  return app;
}
