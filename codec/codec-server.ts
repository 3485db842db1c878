/**
 * The codec server (`rampflow codec-server`): Temporal's remote codec protocol over HTTP, so the Web UI
 * and the `temporal` CLI show operators decrypted payloads.
 *
 * - `POST /<token>/encode`, `POST /<token>/decode`: the token as a secret path segment, for the Web UI
 *   (its codec endpoint is a plain URL: `--ui-codec-endpoint http://host:port/<token>`);
 * - `POST /encode`, `POST /decode` with `Authorization: Bearer <token>`, for the CLI
 *   (`temporal workflow show --codec-endpoint http://host:port --codec-auth "Bearer <token>"`);
 * - `GET /healthz`.
 *
 * A caller without the token gets 401 (or 404 for a wrong path token, like any unknown path) and the
 * UI then shows the payloads as ciphertext. Tokens are compared in constant time. CORS answers only the
 * configured Web UI origins. Logs are one line per request with the route pattern and the outcome,
 * never the URL (it may hold the token) and never a payload.
 */
import cors from '@fastify/cors';
import type { Payload, PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { tokenMatches } from '../config/secret-token';

export interface CodecServerOptions {
  codec: PayloadCodec;
  token: string;
  /** Web UI origins allowed to call from a browser (CODEC_SERVER_CORS_ORIGINS). */
  corsOrigins: string[];
  logger: Logger;
}

/** A workflow's input or a query's answer is small; a whole history page of payloads is at most a few MiB. */
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

// The protocol's JSON is the proto3 JSON form of Payloads: metadata values and data as base64.
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');
const JsonPayloadsSchema = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })),
});
type JsonPayloads = z.infer<typeof JsonPayloadsSchema>;

function fromJson(body: JsonPayloads): Payload[] {
  return body.payloads.map(({ metadata, data }) => ({
    metadata: Object.fromEntries(
      Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(data ?? '', 'base64'),
  }));
}

function toJson(payloads: Payload[]): JsonPayloads {
  return {
    payloads: payloads.map(({ metadata, data }) => ({
      metadata: Object.fromEntries(
        Object.entries(metadata ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value ?? new Uint8Array()).toString('base64'),
        ]),
      ),
      data: Buffer.from(data ?? new Uint8Array()).toString('base64'),
    })),
  };
}

const BEARER = /^Bearer\s+(.+)$/i;

export async function buildCodecServer(options: CodecServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true });
  await app.register(cors, {
    origin: options.corsOrigins,
    methods: ['POST'],
    // The Web UI sends its namespace, and its user's token when it forwards one.
    allowedHeaders: ['Content-Type', 'X-Namespace', 'Authorization'],
    credentials: true,
    maxAge: 600,
  });

  const respond = async (
    request: FastifyRequest,
    reply: FastifyReply,
    route: string,
    direction: 'encode' | 'decode',
    authorized: boolean,
  ) => {
    const finish = (status: number, body: unknown, count?: number) => {
      options.logger.info({ route, status, ...(count !== undefined ? { payloads: count } : {}) }, 'codec request');
      return reply.code(status).send(body);
    };
    if (!authorized) return finish(401, { error: 'a codec token is required' });
    const parsed = JsonPayloadsSchema.safeParse(request.body);
    if (!parsed.success)
      return finish(400, { error: 'expected {"payloads": [{"metadata": {...}, "data": "<base64>"}]}' });
    try {
      const payloads = fromJson(parsed.data);
      const result =
        direction === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
      return finish(200, toJson(result), payloads.length);
    } catch (error) {
      // The codec's messages name key ids and nothing of the payloads.
      return finish(422, { error: error instanceof Error ? error.message : String(error) });
    }
  };

  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, (request, reply) => {
      const bearer = BEARER.exec(request.headers.authorization ?? '')?.[1];
      return respond(request, reply, `/${direction}`, direction, tokenMatches(bearer, options.token));
    });
    app.post<{ Params: { token: string } }>(`/:token/${direction}`, (request, reply) => {
      if (!tokenMatches(request.params.token, options.token)) {
        options.logger.info({ route: `/:token/${direction}`, status: 404 }, 'codec request');
        return reply.code(404).send({ error: 'not found' });
      }
      return respond(request, reply, `/:token/${direction}`, direction, true);
    });
  }
  app.get('/healthz', () => ({ ok: true }));
  return app;
}
