/**
 * A writer of the file store in a process of its own, as the worker is: opens `<dir>` as the writer
 * with RAMPFLOW_PAYLOAD_KEYS, appends `<count>` events of customer `<externalId>`, prints `appended`,
 * and holds the log until its stdin closes (or it is killed, as a crash).
 */
import { parseEnv, PayloadEnvSchema } from '../../../config/env';
import { openFilePartnerEventStore } from '../../../partner-events/file-store';
import { customerEvents, customerStream } from '../../support/partner-events';

async function main(): Promise<void> {
  const [dir, externalId, count] = process.argv.slice(2);
  const { RAMPFLOW_PAYLOAD_KEYS } = parseEnv(PayloadEnvSchema);
  const store = await openFilePartnerEventStore({ dir: dir!, payloadKeys: RAMPFLOW_PAYLOAD_KEYS, role: 'writer' });
  await store.append(customerStream(externalId!), customerEvents(externalId!, Number(count)));
  process.stdout.write('appended\n');
  process.stdin.resume();
  process.stdin.once('end', () => void store.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
