/** Connections to the run's shared Temporal dev server, for tests in the `temporal` project. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { dataConverterFromEnv, payloadKeysFromEnv } from '../../codec';
import type { PayloadKey } from '../../config/env';

export function temporalAddress(): string {
  return inject('temporalAddress');
}

/** A client of the shared server; it encrypts with the run's keys unless given another data converter. */
export async function connectClient(
  dataConverter: DataConverter = dataConverterFromEnv(),
): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: temporalAddress() });
  return { client: new Client({ connection, dataConverter }), close: () => connection.close() };
}

export function connectWorker(): Promise<NativeConnection> {
  return NativeConnection.connect({ address: temporalAddress() });
}

/** The run's payload keys (vitest.config.ts makes one per run). */
export function testPayloadKeys(): PayloadKey[] {
  return payloadKeysFromEnv();
}

/** A task queue no other test uses, so tests sharing the server cannot take each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * A time further back than the test namespace's retention (a day more): a sandbox whose clock starts
 * there makes records (trades) as old as those a run removed at retention had; a run deleted by hand
 * stands for one removed at retention only then (workflows/deposit/run.ts, `noEarlierRunCouldHaveToldIt`).
 */
export async function pastTheRetention(namespace = 'default'): Promise<Date> {
  const { client, close } = await connectClient();
  try {
    const { config } = await client.workflowService.describeNamespace({ namespace });
    const retentionMs = Number(String(config?.workflowExecutionRetentionTtl?.seconds ?? 0)) * 1000;
    if (retentionMs <= 0) throw new Error(`namespace ${namespace} states no retention`);
    return new Date(Date.now() - retentionMs - 86_400_000);
  } finally {
    await close();
  }
}
