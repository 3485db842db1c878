/**
 * The dev server `rampflow dev` and `npm start` run keeps its state in a file, and `--search-attribute`
 * registers attributes only when the namespace is created: a file made before an attribute existed
 * (RampStageSince) must still get it, or every journey's workflow task fails on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';
import { INDEXED_VALUE_TYPES } from '../../workers/namespace-check';
import { RAMP_SEARCH_ATTRIBUTES } from '../../observability/search-attributes';

describe('the dev-server launcher on a database file made before an attribute existed', () => {
  const folder = mkdtempSync(join(tmpdir(), 'rampflow-dev-server-attributes-'));
  let server: DevServer | undefined;
  afterEach(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('registers every attribute of RAMP_SEARCH_ATTRIBUTES the namespace lacks', async () => {
    const dbFile = join(folder, 'temporal.db');
    const port = await freePort();
    const withoutStageSince = RAMP_SEARCH_ATTRIBUTES.filter(({ name }) => name !== 'RampStageSince');
    server = await startDevServer({ port, headless: true, dbFile, searchAttributes: withoutStageSince });
    await server.stop();

    server = await startDevServer({ port, headless: true, dbFile });
    const connection = await Connection.connect({ address: server.address });
    try {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const { name, type } of RAMP_SEARCH_ATTRIBUTES)
        expect(listed.customAttributes?.[name], name).toBe(INDEXED_VALUE_TYPES[type]);
    } finally {
      await connection.close();
    }
  });
});
