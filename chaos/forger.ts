/**
 * Someone holding the leaked webhook token: from a source address of its own, forged deliveries at a
 * steady rate (known and unknown event names, made-up ids and ids copied from the genuine side, varied
 * and malformed payloads) to the receiver, for as long as the run plays. Its choices come from the
 * run's seed. It keeps every payload id it sent, to tell the workflows its deliveries started.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { customer, deposit, depositAddress, payment, trade, virtualAccount } from '../test/ramp/support/records';
import { mulberry32 } from '../test/faults/support/random';

/** Loopback, but not the service's 127.0.0.1: the receiver keeps a budget per source address. */
export const FORGER_ADDRESS = '127.0.0.2';

const EVENT_NAMES = [
  'CUSTOMER_APPROVED',
  'CUSTOMER_REJECTED',
  'CUSTOMER_DELETED',
  'VIRTUAL_ACCOUNT_APPROVED',
  'DEPOSIT_ADDRESS_APPROVED',
  'DEPOSIT_RECEIVED',
  'DEPOSIT_APPROVED',
  'DEPOSIT_REJECTED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  'PAYMENT_SETTLED',
  // Names rampflow does not know.
  'ACCOUNT_FROZEN',
  'CUSTOMER_UPGRADED',
];
const STATUSES = [
  'APPROVED',
  'CONFIRMED',
  'VERIFIED',
  'REJECTED',
  'DELETED',
  'SETTLED',
  'PENDING',
  'RECEIVED',
  'FAILED',
];

export interface ForgerReport {
  sent: number;
  /** Answers by HTTP status (0: no answer). */
  byStatus: Map<number, number>;
  startedAt: number;
  endedAt: number;
  forgedIds: Set<string>;
}

export class Forger {
  private readonly next: () => number;
  private readonly agent = new Agent({ localAddress: FORGER_ADDRESS, connections: 32 });
  private readonly report: ForgerReport = {
    sent: 0,
    byStatus: new Map(),
    startedAt: 0,
    endedAt: 0,
    forgedIds: new Set(),
  };
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    seed: number,
    private readonly url: string,
    private readonly perSecond: number,
    private readonly genuine: () => { externalIds: string[]; ids: string[] },
  ) {
    // Its own stream of the seed's numbers, apart from the schedule's.
    this.next = mulberry32(seed ^ 0x5eed);
  }

  start(): void {
    this.running = true;
    this.report.startedAt = Date.now();
    this.loop = this.play();
  }

  async stop(): Promise<ForgerReport> {
    this.running = false;
    await this.loop;
    this.report.endedAt = Date.now();
    await this.agent.close();
    return this.report;
  }

  private chance(p: number): boolean {
    return this.next() < p;
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }

  private someId(known: string[]): string {
    const id = known.length > 0 && this.chance(0.5) ? this.pick(known) : randomUUID();
    this.report.forgedIds.add(id);
    return id;
  }

  private forgery(): unknown {
    const { externalIds, ids } = this.genuine();
    const event = this.chance(0.1) ? `MADE_UP_${randomUUID().slice(0, 8)}` : this.pick(EVENT_NAMES);
    const id = this.someId(ids);
    if (this.chance(0.1)) return { event, payload: { id } };
    const base = this.pick([customer, virtualAccount, depositAddress, deposit, trade, payment]) as Record<
      string,
      unknown
    >;
    return {
      event,
      payload: {
        ...base,
        id,
        status: this.pick(STATUSES),
        externalId: externalIds.length > 0 && this.chance(0.7) ? this.pick(externalIds) : `forged-${randomUUID()}`,
        customerId: this.someId(ids),
        reference: this.someId(ids),
        deposit: { id: this.someId(ids), currency: 'USD', amount: '1000000.00' },
      },
    };
  }

  /** A tenth of a second's worth at a time, keeping the pace whatever the answers take. */
  private async play(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const perTick = Math.max(1, Math.round(this.perSecond / 10));
    for (let tick = 0; this.running; tick += 1) {
      for (let n = 0; n < perTick; n += 1) {
        const posted = this.post(this.forgery()).finally(() => inFlight.delete(posted));
        inFlight.add(posted);
      }
      const due = this.report.startedAt + (tick + 1) * 100;
      await new Promise((wake) => setTimeout(wake, Math.max(0, due - Date.now())));
    }
    await Promise.all(inFlight);
  }

  private async post(body: unknown): Promise<void> {
    this.report.sent += 1;
    let status = 0;
    try {
      const response = await request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        dispatcher: this.agent,
        headersTimeout: 15_000,
        bodyTimeout: 15_000,
      });
      await response.body.text();
      status = response.statusCode;
    } catch {
      // The receiver is down (the schedule restarts it): no answer.
    }
    this.report.byStatus.set(status, (this.report.byStatus.get(status) ?? 0) + 1);
  }
}
