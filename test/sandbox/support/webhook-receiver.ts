/**
 * A local webhook receiver that records every delivery and answers as the test scripts it
 * (a status per call, or a delay longer than the acknowledgement timeout).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  contentType: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
}

export interface Answer {
  status?: number;
  /** Hold the answer this long (ms). */
  delayMs?: number;
  headers?: Record<string, string>;
}

export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  /** Answers for the next calls, in order; afterwards `fallback`. */
  readonly script: Answer[] = [];
  fallback: Answer = { status: 200 };
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({
          path: request.url ?? '',
          contentType: request.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        const answer = this.script.shift() ?? this.fallback;
        const reply = (): void => {
          if (response.destroyed) return;
          response.writeHead(answer.status ?? 200, answer.headers).end('ok');
        };
        if (answer.delayMs === undefined) reply();
        else setTimeout(reply, answer.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks/ramp/test-token`;
    return this;
  }

  events(): string[] {
    return this.received.map((delivery) => delivery.body.event as string);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}
