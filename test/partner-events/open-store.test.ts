/** openPartnerEventStore picks the store the environment names, and its role holds. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEnv, PartnerEventsEnvSchema } from '../../config/env';
import { freePort } from '../../dev/ports';
import { LOG_FILE } from '../../partner-events/file-store';
import { openPartnerEventStore } from '../../partner-events/open-store';
import { PartnerEventStoreUnavailableError } from '../../partner-events/store-errors';
import { customerEvents, customerStream } from '../support/partner-events';
import { payloadKeys } from './store-contract';

const folder = mkdtempSync(join(tmpdir(), 'rampflow-open-store-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('openPartnerEventStore', () => {
  const keys = payloadKeys('k1');

  it('opens the file store in PARTNER_EVENTS_DIR when no database URL is set', async () => {
    const dir = join(folder, 'events');
    const env = parseEnv(PartnerEventsEnvSchema, { PARTNER_EVENTS_DIR: dir });
    const writer = await openPartnerEventStore(env, keys, { role: 'writer' });
    const reader = await openPartnerEventStore(env, keys, { role: 'reader' });
    await writer.append(customerStream('o'), customerEvents('o', 1));
    expect(existsSync(join(dir, LOG_FILE))).toBe(true);
    expect((await reader.after(undefined, 10)).events).toHaveLength(1);
    await expect(reader.append(customerStream('o'), [])).rejects.toThrow(/opened as a reader/);
    await writer.close();
    await reader.close();
  });

  it('opens the PostgreSQL store when PARTNER_EVENTS_DATABASE_URL is set (and starts while the database is away)', async () => {
    const env = parseEnv(PartnerEventsEnvSchema, {
      PARTNER_EVENTS_DATABASE_URL: `postgres://rampflow:pw@127.0.0.1:${await freePort()}/events`,
      PARTNER_EVENTS_DIR: join(folder, 'unused'),
    });
    const reader = await openPartnerEventStore(env, keys, { role: 'reader' });
    await expect(reader.after(undefined, 10)).rejects.toBeInstanceOf(PartnerEventStoreUnavailableError);
    await reader.close();
    expect(existsSync(join(folder, 'unused'))).toBe(false);
  });
});
