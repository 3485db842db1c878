/**
 * When the infrastructure cases strike: once while the journeys are onboarding (at least one ACTIVE,
 * the others still on their way) and once while deposits are in flight (half of them started, some
 * not finished). Visibility may be unreachable around an outage, so a failed count is "not yet".
 */
import type { Client } from '@temporalio/client';
import { activeJourneys, finishedDeposits, startedDeposits } from './journeys';
import { pause, until } from './until';

export interface Outage {
  /** Where the journeys stood when it struck. */
  at: string;
  /** Deposit workflows already finished then: fewer than all shows there was something to lose. */
  finishedDeposits: number;
}

export async function outageAtOnboardingAndInFlight(options: {
  client: Client;
  journeys: number;
  random: { next: () => number };
  outage: () => Promise<void>;
}): Promise<Outage[]> {
  const { client, journeys, random } = options;
  const outages: Outage[] = [];
  const strike = async (at: string) => {
    outages.push({ at, finishedDeposits: await finishedDeposits(client) });
    await options.outage();
  };
  await until('a journey ACTIVE', async () => ((await activeJourneys(client).catch(() => 0)) >= 1 ? true : undefined), {
    timeoutMs: 120_000,
  });
  await pause(random.next() * 2_000);
  await strike(`onboarding, ${await activeJourneys(client)} journeys ACTIVE`);
  const depositsInFlight = async () => {
    const [started, finished] = [await startedDeposits(client), await finishedDeposits(client)];
    return started >= journeys / 2 && started > finished ? true : undefined;
  };
  await until('deposits in flight', () => depositsInFlight().catch(() => undefined), { timeoutMs: 240_000 });
  await pause(random.next() * 2_000);
  await strike(`deposits in flight, ${await startedDeposits(client)} started`);
  return outages;
}
