/**
 * Rampflow's workflows, and one more for the tests of partner event delivery: a stream's burst of
 * events (a deposit storm's, without twenty-five deposits) emitted through the real outbox, after
 * which the workflow goes on with its business (here: waiting to be told to finish) and then ends
 * as a journey does, waiting for `drained()`.
 */
import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import { PartnerEventOutbox } from '../../../workflows/partner-events/outbox';

export * from '../../../workflows';

export const finishSignal = defineSignal('finish');

export interface PartnerEventBurst {
  externalId: string;
  count: number;
}

export async function partnerEventBurst({ externalId, count }: PartnerEventBurst): Promise<number> {
  let finish = false;
  setHandler(finishSignal, () => void (finish = true));
  const outbox = new PartnerEventOutbox({ externalId });
  for (let index = 1; index <= count; index += 1)
    outbox.emit('deposit.received', {
      depositId: `dep-${index}`,
      kind: 'ONRAMP',
      amount: `${index}.00`,
      currency: 'AUD',
    });
  await condition(() => finish);
  await outbox.drained();
  return count;
}
