/**
 * What every PartnerEventStore promises, as one suite run against each implementation
 * (file-store.test.ts, postgres-store.test.ts): idempotent appends, one order that pages with no gap
 * and no repeat (concurrent appenders and a concurrent reader included), streams in sequence order,
 * cursors checked, readers in other instances catching up, key rotation, and bodies sealed at rest.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generatePayloadKey } from '../../codec/keys';
import { PayloadKeysSchema, type PayloadKey } from '../../config/env';
import type { PartnerEvent } from '../../partner-events/catalogue';
import type { PartnerEventPage, PartnerEventStore } from '../../partner-events/store';
import { PartnerEventConflictError, PartnerEventCursorError } from '../../partner-events/store-errors';
import { customerEvents, customerStream, newEventId, payoutEvent, secretKycLink } from '../support/partner-events';

/** One case's storage: empty when handed out. */
export interface StoreSite {
  open(role: 'writer' | 'reader', keys?: readonly PayloadKey[]): Promise<PartnerEventStore>;
  /** Stores that append at the same time: separate instances where the store takes several writers. */
  concurrentWriters(count: number, keys: readonly PayloadKey[]): Promise<PartnerEventStore[]>;
  /** Every byte the store keeps at rest (files, or the database's files and WAL). */
  bytesAtRest(): Promise<Buffer>;
}

export const payloadKeys = (...ids: string[]): PayloadKey[] =>
  PayloadKeysSchema.parse(ids.map((id) => generatePayloadKey(id)).join(','));

const withoutCursor = ({ cursor: _cursor, ...event }: PartnerEvent & { cursor: string }): PartnerEvent => event;

/** Every event after `cursor`, a page of `limit` at a time, checking each page's `next`. */
export async function readAll(
  store: PartnerEventStore,
  limit: number,
  cursor?: string,
): Promise<{ events: PartnerEventPage['events']; next: string }> {
  const events: PartnerEventPage['events'] = [];
  let next = cursor;
  for (;;) {
    const page = await store.after(next, limit);
    expect(page.events.length).toBeLessThanOrEqual(limit);
    if (page.events.length > 0) expect(page.next).toBe(page.events.at(-1)!.cursor);
    events.push(...page.events);
    if (page.events.length === 0) return { events, next: page.next };
    next = page.next;
  }
}

export function describeStoreContract(name: string, freshSite: () => Promise<StoreSite>): void {
  describe(`${name}: the partner event store contract`, () => {
    const opened: PartnerEventStore[] = [];
    let site: StoreSite;
    const keys = payloadKeys('k1');
    const open = async (role: 'writer' | 'reader', withKeys: readonly PayloadKey[] = keys) => {
      const store = await site.open(role, withKeys);
      opened.push(store);
      return store;
    };
    const fresh = async () => {
      site = await freshSite();
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it('keeps events as appended, and appends each id once (a retried append adds only what is new)', async () => {
      await fresh();
      const writer = await open('writer');
      const ada = customerEvents('ada', 3);
      await writer.append(customerStream('ada'), ada.slice(0, 2));
      await writer.append(customerStream('ada'), ada);
      await writer.append(customerStream('ada'), ada);
      const payout = payoutEvent('inv-1');
      await writer.append('payout/inv-1', [payout]);
      await writer.append(customerStream('ada'), []);

      const { events } = await readAll(writer, 100);
      expect(events.map(withoutCursor)).toEqual([...ada, payout]);
      expect(await writer.stream(customerStream('ada'), 0, 100)).toEqual(ada);
    });

    it('pages in one order with no gap and no repeat, and a page past the end keeps the cursor', async () => {
      await fresh();
      const writer = await open('writer');
      const appended: PartnerEvent[] = [];
      // Interleaved streams: the partner-wide order is the order of appends, not of streams.
      for (let round = 0; round < 5; round++) {
        for (const who of ['a', 'b', 'c']) {
          const [event] = customerEvents(who, 1, { from: round + 1 });
          await writer.append(customerStream(who), [event!]);
          appended.push(event!);
        }
      }
      const first = await writer.after(undefined, 4);
      expect(first.events.map(withoutCursor)).toEqual(appended.slice(0, 4));
      const { events, next } = await readAll(writer, 4);
      expect(events.map(withoutCursor)).toEqual(appended);
      const cursors = events.map((event) => event.cursor);
      expect(new Set(cursors).size).toBe(cursors.length);

      const end = await writer.after(next, 10);
      expect(end).toEqual({ events: [], next });
      expect(await writer.after(undefined, 1000)).toMatchObject({ events: { length: appended.length } });
      // From any event's cursor, exactly what came after it.
      expect((await readAll(writer, 3, cursors[6])).events.map(withoutCursor)).toEqual(appended.slice(7));
    });

    it('refuses a cursor it did not give out, and reads nothing after one beyond the end', async () => {
      await fresh();
      const writer = await open('writer');
      for (const bad of [
        '',
        'abc',
        '-1',
        '01',
        '1.5',
        ' 1',
        '1e3',
        '0x10',
        '99999999999999999999',
        '9223372036854775808',
      ]) {
        await expect(writer.after(bad, 10), JSON.stringify(bad)).rejects.toBeInstanceOf(PartnerEventCursorError);
      }
      expect(await writer.after('9223372036854775807', 10)).toEqual({ events: [], next: '9223372036854775807' });
      expect(await writer.after(undefined, 10)).toEqual({ events: [], next: '0' });
      expect(await writer.after('0', 10)).toEqual({ events: [], next: '0' });
    });

    it('reads a stream in sequence order, after a sequence, a page at a time', async () => {
      await fresh();
      const writer = await open('writer');
      const events = customerEvents('grace', 7);
      await writer.append(customerStream('grace'), events.slice(0, 3));
      await writer.append(customerStream('other'), customerEvents('other', 2));
      await writer.append(customerStream('grace'), events.slice(3));
      expect(await writer.stream(customerStream('grace'), 0, 100)).toEqual(events);
      expect(await writer.stream(customerStream('grace'), 2, 3)).toEqual(events.slice(2, 5));
      expect(await writer.stream(customerStream('grace'), 7, 10)).toEqual([]);
      expect(await writer.stream(customerStream('nobody'), 0, 10)).toEqual([]);
      await expect(writer.stream(customerStream('grace'), -1, 10)).rejects.toThrow(/afterSequence/);
      await expect(writer.after(undefined, 0)).rejects.toThrow(/limit/);
    });

    it('refuses an event whose sequence another event holds, and the rest of its batch', async () => {
      await fresh();
      const writer = await open('writer');
      const [first, second] = customerEvents('lin', 2);
      await writer.append(customerStream('lin'), [first!]);
      const impostor = { ...first!, id: newEventId() };
      await expect(writer.append(customerStream('lin'), [impostor, second!])).rejects.toBeInstanceOf(
        PartnerEventConflictError,
      );
      expect((await readAll(writer, 10)).events.map(withoutCursor)).toEqual([first]);
      // Batches out of order, or for another stream, are the appender's bug too.
      await expect(writer.append(customerStream('lin'), [second!, first!])).rejects.toThrow(
        /increasing sequence order/,
      );
      await expect(writer.append(customerStream('someone-else'), [second!])).rejects.toThrow(/does not belong/);
    });

    it("reports each stream's last sequence, so a new run of a stream numbers on from it", async () => {
      await fresh();
      const writer = await open('writer');
      expect(await writer.lastSequence(customerStream('ode'))).toBe(0);
      await writer.append(customerStream('ode'), customerEvents('ode', 3));
      await writer.append(customerStream('other'), customerEvents('other', 5));
      expect(await writer.lastSequence(customerStream('ode'))).toBe(3);
      const reader = await open('reader');
      expect(await reader.lastSequence(customerStream('other'))).toBe(5);
    });

    it('says where a stream holds events by id, so a fact a reset run emits again is found under its first sequence', async () => {
      await fresh();
      const writer = await open('writer');
      const [first, second] = customerEvents('ode', 2);
      const [elsewhere] = customerEvents('other', 1);
      await writer.append(customerStream('ode'), [first!, second!]);
      await writer.append(customerStream('other'), [elsewhere!]);
      const unknown = newEventId();
      expect(await writer.sequencesOf(customerStream('ode'), [second!.id, unknown, elsewhere!.id, first!.id])).toEqual(
        new Map([
          [second!.id, 2],
          [first!.id, 1],
        ]),
      );
      expect(await writer.sequencesOf(customerStream('ode'), [])).toEqual(new Map());
      const reader = await open('reader');
      expect(await reader.sequencesOf(customerStream('other'), [elsewhere!.id])).toEqual(new Map([[elsewhere!.id, 1]]));
    });

    it("shows a reader in another instance what a writer appends later, and its cursor survives the reader's restart", async () => {
      await fresh();
      const reader = await open('reader');
      expect(await reader.after(undefined, 10)).toEqual({ events: [], next: '0' });
      const writer = await open('writer');
      const early = customerEvents('mae', 3);
      await writer.append(customerStream('mae'), early);
      const page = await reader.after(undefined, 2);
      expect(page.events.map(withoutCursor)).toEqual(early.slice(0, 2));

      const late = customerEvents('mae', 2, { from: 4 });
      await writer.append(customerStream('mae'), late);
      const restarted = await open('reader');
      expect((await readAll(restarted, 10, page.next)).events.map(withoutCursor)).toEqual([early[2], ...late]);
      expect(await reader.stream(customerStream('mae'), 3, 10)).toEqual(late);
      await expect(reader.append(customerStream('mae'), late)).rejects.toThrow(/opened as a reader/);
      await expect(reader.disableEndpoint('crm', 'gone')).rejects.toThrow(/opened as a reader/);
    });

    it('gives a concurrent reader every event of concurrent appenders exactly once, in an order each stream keeps', async () => {
      await fresh();
      const writers = await site.concurrentWriters(4, keys);
      opened.push(...new Set(writers));
      const reader = await open('reader');
      const appended: PartnerEvent[] = [];
      let appending = true;

      const appenders = writers.map(async (writer, w) => {
        const who = `busy-${w}`;
        let sequence = 1;
        for (let batch = 0; batch < 12; batch++) {
          const events = customerEvents(who, 1 + (batch % 3), { from: sequence });
          sequence += events.length;
          appended.push(...events);
          await writer.append(customerStream(who), events);
        }
      });
      const seen: PartnerEventPage['events'] = [];
      const paging = (async () => {
        let cursor: string | undefined;
        // Reads while appends land; a last pass after they all returned picks up the rest.
        for (let last = false; ;) {
          const page = await reader.after(cursor, 5);
          seen.push(...page.events);
          cursor = page.next;
          if (page.events.length === 0) {
            if (last) return;
            if (!appending) last = true;
            await new Promise((wake) => setTimeout(wake, 2));
          }
        }
      })();
      await Promise.all(appenders);
      appending = false;
      await paging;

      const ids = seen.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(appended.map((event) => event.id).sort());
      const positions = seen.map((event) => BigInt(event.cursor));
      expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      for (let w = 0; w < writers.length; w++) {
        const sequences = seen.filter((event) => event.externalId === `busy-${w}`).map((event) => event.sequence);
        expect(sequences).toEqual(sequences.map((_, index) => index + 1));
      }
    });

    it('opens events sealed with an older key once a new key is first, and names the key it lacks', async () => {
      await fresh();
      const [oldKey] = payloadKeys('old');
      const [newKey] = payloadKeys('new');
      const before = customerEvents('rot', 2);
      const writer = await open('writer', [oldKey!]);
      await writer.append(customerStream('rot'), before);
      await writer.close();
      opened.splice(opened.indexOf(writer), 1);

      const rotated = await open('writer', [newKey!, oldKey!]);
      const after = customerEvents('rot', 1, { from: 3 });
      await rotated.append(customerStream('rot'), after);
      expect((await readAll(rotated, 10)).events.map(withoutCursor)).toEqual([...before, ...after]);

      const withoutOld = await open('reader', [newKey!]);
      expect(await withoutOld.stream(customerStream('rot'), 2, 10)).toEqual(after);
      const refusal = await withoutOld.stream(customerStream('rot'), 0, 10).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(refusal?.message).toMatch(/key id 'old'/);
      expect(refusal?.message).not.toContain('kyc.example');
    });

    it('keeps no customer data in plaintext at rest', async () => {
      await fresh();
      const writer = await open('writer');
      const kycLink = secretKycLink();
      const accountNumber = `99${Date.now()}`;
      await writer.append(
        customerStream('private-customer'),
        customerEvents('private-customer', 2, { kycLink, accountNumber }),
      );
      expect((await writer.stream(customerStream('private-customer'), 0, 10))[0]).toMatchObject({ data: { kycLink } });
      const atRest = await site.bytesAtRest();
      // The stream's name is stored readable: finding it shows the search looks where the events are.
      expect(atRest.includes('customer/private-customer')).toBe(true);
      expect(atRest.includes(kycLink)).toBe(false);
      expect(atRest.includes(accountNumber)).toBe(false);
    });

    it('keeps disabled endpoints until they are enabled again', async () => {
      await fresh();
      const writer = await open('writer');
      const reader = await open('reader');
      expect(await reader.disabledEndpoints()).toEqual([]);
      await writer.disableEndpoint('crm', '410 Gone');
      await writer.disableEndpoint('analytics', '410 Gone');
      const [, crm] = await reader.disabledEndpoints();
      expect(crm).toEqual({ name: 'crm', since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), reason: '410 Gone' });
      await writer.disableEndpoint('crm', 'again');
      expect((await reader.disabledEndpoints()).find((endpoint) => endpoint.name === 'crm')).toEqual(crm);
      await writer.enableEndpoint('crm');
      await writer.enableEndpoint('never-disabled');
      expect((await reader.disabledEndpoints()).map((endpoint) => endpoint.name)).toEqual(['analytics']);
    });
  });
}
