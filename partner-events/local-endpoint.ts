/**
 * A partner endpoint on this machine, the receiving side of partner events, used by
 * `rampflow partner-events listen` and by the dev stack (`npm start`). It does what a partner's
 * backend should: verifies each delivery with the `standardwebhooks` package (401 when the signature,
 * the timestamp window or a header is wrong), then prints one line per event and, with `forwardTo`,
 * passes the delivery on untouched (the same body bytes and webhook-* headers, so the target can
 * verify it too) and answers with the target's verdict: 2xx → 200, 410 → 410 (the target asks
 * rampflow to stop), anything else or no answer → 502, so rampflow retries.
 *
 * A line holds the event's type, its stream (externalId or payoutReference), sequence and id: never
 * the event's data, which carries KYC links and account numbers.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { z } from 'zod';
import type { PartnerEndpoint } from './endpoint-types';
import { secretProblem, SECRET_PREFIX } from './endpoints';

/** Events are small (Standard Webhooks recommends under 20 KB); anything far larger is not one. */
const BODY_LIMIT_BYTES = 64 * 1024;
/** Below rampflow's own delivery timeout, so rampflow hears the 502 rather than timing out itself. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
const FORWARDED_HEADERS = [
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
] as const;
const REMEMBERED_IDS = 1_000;

export interface LocalEndpointOptions {
  /** The `whsec_` secret rampflow signs with for this endpoint. */
  secret: string;
  /** 0 lets the OS choose. */
  port: number;
  /** 127.0.0.1 by default: the endpoint is for this machine. */
  host?: string;
  /** Where each verified delivery is passed on; without it, every verified delivery is answered 200. */
  forwardTo?: string;
  forwardTimeoutMs?: number;
  /** Receives one line per delivery. */
  print: (line: string) => void;
}

export interface LocalEndpoint {
  /** What to configure as the endpoint's url. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function generateEndpointSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The endpoint entry rampflow needs to deliver here. */
export function localEndpointConfig(url: string, secret: string, name = 'local'): PartnerEndpoint {
  return { name, url, secrets: [secret] };
}

/** PARTNER_EVENT_ENDPOINTS's value for these endpoints (JSON without quotes a shell would need escaped). */
export function endpointsVariable(endpoints: readonly PartnerEndpoint[]): string {
  return JSON.stringify(endpoints);
}

/** The envelope fields a line shows; `data` is deliberately not read. Loose, so a newer rampflow's events still print. */
const LineFields = z.object({
  id: z.string(),
  type: z.string(),
  sequence: z.number().optional(),
  externalId: z.string().optional(),
  payoutReference: z.string().optional(),
});

/** One line of plain text, whatever a field holds. */
function clean(text: string, max = 80): string {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return plain.length > max ? `${plain.slice(0, max)}…` : plain;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `<type> <externalId|payoutReference> #<sequence> <id>`: ids only. */
export function describeEvent(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return '(a body that is not JSON)';
  }
  const fields = LineFields.safeParse(parsed);
  if (!fields.success) return '(not a partner event)';
  const { id, type, sequence, externalId, payoutReference } = fields.data;
  return `${clean(type)} ${clean(externalId ?? payoutReference ?? '-')} #${sequence ?? '?'} ${clean(id)}`;
}

type Verdict = { answer: number; shown: string };

export async function startLocalEndpoint(options: LocalEndpointOptions): Promise<LocalEndpoint> {
  const problem = secretProblem(options.secret);
  if (problem) throw new Error(`the endpoint's secret ${problem}`);
  const verifier = new Webhook(options.secret);
  const forwardTimeoutMs = options.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  // Its own pool, closed with the endpoint; nothing else in the process shares it.
  const agent = options.forwardTo ? new Agent({ keepAliveTimeout: 4_000, connections: 4 }) : undefined;
  const seen = new Set<string>();

  async function forward(body: Buffer, headers: Record<string, string>): Promise<Verdict> {
    if (!options.forwardTo || !agent) return { answer: 200, shown: '200' };
    try {
      const answer = await request(options.forwardTo, {
        method: 'POST',
        dispatcher: agent,
        headers,
        body,
        signal: AbortSignal.timeout(forwardTimeoutMs),
      });
      await answer.body.dump({ limit: 4 * 1024 }).catch(() => undefined);
      const status = answer.statusCode;
      return { answer: status >= 200 && status <= 299 ? 200 : status === 410 ? 410 : 502, shown: String(status) };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const code = (error as NodeJS.ErrnoException).code;
      return {
        answer: 502,
        shown: timedOut
          ? `no answer within ${forwardTimeoutMs} ms`
          : `unreachable (${typeof code === 'string' ? clean(code, 40) : 'error'})`,
      };
    }
  }

  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });
  // The signature covers the exact bytes: keep them, never a re-serialised parse.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/', async (req, reply) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    try {
      verifier.verify(body, headers, { jsonParse: false });
    } catch (error) {
      const reason =
        error instanceof WebhookVerificationError ? clean(error.message) : 'the delivery could not be verified';
      options.print(`${now()} rejected a delivery (401): ${reason}`);
      return reply.code(401).send({ error: 'signature not verified' });
    }
    const id = headers['webhook-id']!;
    const again = seen.has(id);
    if (!again) {
      seen.add(id);
      // Forget the oldest first: a Set iterates in insertion order.
      if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
    }
    const verdict = await forward(body, headers);
    options.print(
      `${now()} ${describeEvent(body.toString('utf8'))} → ${verdict.shown}${again ? ' (again: same webhook-id)' : ''}`,
    );
    return reply
      .code(verdict.answer)
      .send(verdict.answer === 200 ? { ok: true } : { error: `forward target answered ${verdict.shown}` });
  });

  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port, host });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : options.port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    async close() {
      await app.close();
      await agent?.close();
    },
  };
}
