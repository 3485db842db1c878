/**
 * The HTTP server: Fastify with every body kept as raw bytes (the signature covers the exact bytes,
 * so nothing may be parsed and re-serialised before verification), authentication and injected
 * faults around every route, the interface's envelopes, and one log line per request.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { splitRequestTarget } from '../../ramp/signing';
import type { Authenticator } from '../auth/authenticate';
import type { FaultedCall, FaultInjector, FaultRule } from '../faults';
import { SandboxError } from './errors';
import { Query, type QueryReading } from './query';
import type { RouteDefinition } from './route';

export interface ServerDependencies {
  authenticator: Authenticator;
  faults: FaultInjector;
  logger: Logger;
  /** Answer authentication failures with HTTP 401, as a gateway in front of the service may. */
  gateway401: boolean;
  routes: RouteDefinition[];
  /** How query parameters are spelled and the largest page (the sandbox's variants). */
  queryReading: QueryReading;
  /** Routes a browser opens without signing (the hosted KYC page). */
  publicRoutes: { path: string; handler: (request: FastifyRequest, reply: FastifyReply) => Promise<void> }[];
}

/** Attachments are the largest bodies; the interface shows no size limit, so the sandbox allows 10 MiB. */
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** What the log line reports: SUCCESS, a failure status, or a fault. */
    outcome?: string;
    /** When the request arrived (epoch ms), for the log line: what a rate is measured on. */
    receivedAt?: number;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function buildServer(dependencies: ServerDependencies): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });

  // Raw bytes for every content type, including none: verification hashes exactly what was sent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request) => {
    request.receivedAt = Date.now();
  });

  app.addHook('onResponse', async (request, reply) => {
    // Path only: the query may carry customer identifiers, and no header (key, signature) is logged.
    dependencies.logger.info(
      {
        method: request.method,
        path: splitRequestTarget(request.raw.url ?? '').path,
        statusCode: reply.statusCode,
        outcome: request.outcome ?? (reply.statusCode === 200 ? 'SUCCESS' : 'FAILED'),
        latencyMs: Math.round(reply.elapsedTime),
        receivedAt: request.receivedAt,
      },
      'request',
    );
  });

  // Anything unexpected (a bug, a body over the limit) still answers in the interface's failure shape.
  app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
    const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    request.outcome = statusCode === 500 ? 'ERROR' : 'INVALID_PARAMETERS';
    if (statusCode === 500) dependencies.logger.error({ err: error }, 'sandbox request failed');
    await reply.code(statusCode).send({
      status: statusCode === 500 ? 'FAILED' : 'INVALID_PARAMETERS',
      message: statusCode === 500 ? 'internal sandbox error' : error.message,
    });
  });

  // Unknown paths are authenticated too, so a bad signature is reported as such wherever it is sent.
  const unknownRoute: RouteDefinition = { method: 'GET', path: '', handler: () => undefined };
  app.setNotFoundHandler(async (request, reply) => {
    try {
      authenticate(dependencies, request);
    } catch (error) {
      if (error instanceof SandboxError) return sendFailure(unknownRoute, dependencies, request, reply, error);
      throw error;
    }
    request.outcome = 'NOT_FOUND';
    await reply.code(404).send({
      status: 'FAILED',
      message: `no endpoint ${request.method} ${splitRequestTarget(request.raw.url ?? '').path}`,
    });
  });

  for (const publicRoute of dependencies.publicRoutes) app.get(publicRoute.path, publicRoute.handler);

  for (const route of dependencies.routes) {
    app.route({
      method: route.method,
      url: route.path,
      handler: (request, reply) => handle(dependencies, route, request, reply),
    });
  }
  return app;
}

async function sendFailure(
  route: RouteDefinition,
  dependencies: ServerDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  error: SandboxError,
): Promise<void> {
  request.outcome = error.status;
  if (error.status === 'UNAUTHORISED' && dependencies.gateway401) {
    // A gateway's answer: not the service's JSON envelope, which clients must cope with.
    const debugLine =
      typeof error.details.canonicalString === 'string' ? `\ncanonical string:\n${error.details.canonicalString}` : '';
    await reply.code(401).type('text/plain; charset=utf-8').send(`401 Unauthorized: ${error.message}${debugLine}`);
    return;
  }
  await reply
    .code(route.generation === 'old' ? 200 : 422)
    .send({ status: error.status, message: error.message, ...error.details });
}

/** Applies a fault; true when the response has been taken care of (failed or connection reset). */
async function applyFault(rule: FaultRule, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  request.outcome = `FAULT_${rule.kind}`;
  if (rule.kind === 'DELAY') {
    await sleep(rule.delayMs);
    return false;
  }
  if (rule.kind === 'RESET') {
    reply.hijack();
    request.raw.socket.resetAndDestroy();
    return true;
  }
  await reply
    .code(rule.statusCode)
    .type('text/plain; charset=utf-8')
    .send(rule.statusCode === 503 ? 'Service Unavailable' : 'Internal Server Error');
  return true;
}

/**
 * The customer a call names, for faults that pick one customer's calls: the externalId of its query or
 * JSON body, and the service's customer id of its query, its JSON body or the body's `from` (an
 * autoramp flow's create).
 */
function customerNamed(query: Query, rawBody: Buffer, contentType: string | undefined): Omit<FaultedCall, 'apiKey'> {
  const named: Omit<FaultedCall, 'apiKey'> = {};
  const externalIdInQuery = query.optional('externalId');
  const customerIdInQuery = query.optional('customerId');
  if (externalIdInQuery !== undefined) named.externalId = externalIdInQuery;
  if (customerIdInQuery !== undefined) named.customerId = customerIdInQuery;
  if (rawBody.length === 0 || !contentType?.includes('json')) return named;
  let body: { externalId?: unknown; customerId?: unknown; from?: { customerId?: unknown } | null } | null;
  try {
    body = JSON.parse(rawBody.toString('utf8')) as typeof body;
  } catch {
    return named;
  }
  if (body === null || typeof body !== 'object') return named;
  if (named.externalId === undefined && typeof body.externalId === 'string') named.externalId = body.externalId;
  const customerId = body.customerId ?? (typeof body.from === 'object' ? body.from?.customerId : undefined);
  if (named.customerId === undefined && typeof customerId === 'string') named.customerId = customerId;
  return named;
}

/** Authenticates a request as it arrived: raw target, raw body bytes, Host header, peer address. */
function authenticate(
  dependencies: ServerDependencies,
  request: FastifyRequest,
): { partnerId: string; apiKey: string } {
  return dependencies.authenticator.authenticate({
    method: request.method,
    host: request.headers.host,
    rawTarget: request.raw.url ?? '',
    rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    contentType: request.headers['content-type'],
    headers: request.headers,
    sourceIp: request.socket.remoteAddress ?? '',
  });
}

async function handle(
  dependencies: ServerDependencies,
  route: RouteDefinition,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const rawTarget = request.raw.url ?? '';
  const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const contentType = request.headers['content-type'];
  let partnerId: string;
  let apiKey: string;
  try {
    ({ partnerId, apiKey } = authenticate(dependencies, request));
  } catch (error) {
    if (error instanceof SandboxError) return sendFailure(route, dependencies, request, reply, error);
    throw error;
  }

  const path = splitRequestTarget(rawTarget).path;
  const retryAfterSeconds = dependencies.faults.overRate(partnerId, path, request.receivedAt ?? Date.now());
  if (retryAfterSeconds !== undefined) {
    // As a gateway in front of the service would answer: refused before anything was done.
    request.outcome = 'RATE_LIMITED';
    await reply
      .code(429)
      .header('retry-after', String(retryAfterSeconds))
      .type('text/plain; charset=utf-8')
      .send('Too Many Requests');
    return;
  }
  const call: FaultedCall = {
    apiKey,
    ...customerNamed(new Query(splitRequestTarget(rawTarget).query, dependencies.queryReading), rawBody, contentType),
  };
  const before = dependencies.faults.take(partnerId, path, false, call);
  if (before?.kind === 'UNAUTHORISED') {
    request.outcome = 'FAULT_UNAUTHORISED';
    return sendFailure(
      route,
      dependencies,
      request,
      reply,
      new SandboxError('UNAUTHORISED', 'signature verification failed (injected fault: the key was rotated)'),
    );
  }
  if (before?.kind === 'REFUSED') {
    request.outcome = 'FAULT_REFUSED';
    return sendFailure(
      route,
      dependencies,
      request,
      reply,
      new SandboxError('FAILED', 'the operation was refused (injected fault)'),
    );
  }
  if (before !== undefined && (await applyFault(before, request, reply))) return;

  let data: unknown;
  try {
    data = await route.handler({
      partnerId,
      query: new Query(splitRequestTarget(rawTarget).query, dependencies.queryReading),
      rawBody,
      contentType,
    });
  } catch (error) {
    if (error instanceof SandboxError) return sendFailure(route, dependencies, request, reply, error);
    throw error;
  }

  const after = dependencies.faults.take(partnerId, path, true, call);
  if (after !== undefined && (await applyFault(after, request, reply))) return;
  request.outcome = request.outcome ?? 'SUCCESS';
  await reply.code(200).send({ status: 'SUCCESS', data });
}
