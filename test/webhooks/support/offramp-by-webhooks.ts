/**
 * An offramp customer brought to ACTIVE by the service's webhooks alone: a real receiver registered
 * with the sandbox, whose clock is frozen (the harness's `{ clock: { frozen: true } }`), so that each
 * `deliver()` (a minute of the sandbox's clock) runs its delivery scheduler once. The journey polls
 * hourly, so what moves it is the webhooks. Used by the refund and failed-payout cases.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { registerWebhooks } from '../../../webhooks/registration';
import type { DepositTimings } from '../../../workflows/common/timings';
import type { JourneyHarness } from '../../support/journey-harness';
import { startReceiver, type TestReceiver } from './receiver';

const BANK_ACCOUNT_NO = '987654321';
const OFFRAMP = { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: BANK_ACCOUNT_NO } };
const EVENTS_ONLY = { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400, accountsDeadlineSeconds: 86_400 };
const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

export interface OfframpByWebhooks {
  receiver: TestReceiver;
  journey: WorkflowHandle;
  externalId: string;
  depositAddressId: string;
  /** A minute of the sandbox's clock: its delivery scheduler sends what is due. */
  deliver(): Promise<unknown>;
  /** A USDT deposit to the customer's address, confirmed by the service; its id. */
  pay(amount: string): Promise<string>;
  /** The service's trade of a deposit, with its payment's id once it has one. */
  tradeOf(depositId: string): Promise<{ id: string; paymentId?: string }>;
}

/** `depositTimings`: the same as the harness's worker was given, for the deposits the receiver starts. */
export async function startOfframpByWebhooks(
  h: JourneyHarness,
  depositTimings: Partial<DepositTimings>,
): Promise<OfframpByWebhooks> {
  const receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, depositTimings });
  await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
  const deliver = () => h.sandbox.clock.advance(60);
  const journey = await h.startJourney({ offramp: OFFRAMP, timings: EVENTS_ONLY });
  const kyc = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
  await h.control.registerBankAccount({
    customerId: kyc.customer.id!,
    currency: 'AUD',
    bankName: 'Test Bank',
    accountNo: BANK_ACCOUNT_NO,
    swift: 'TESTAU2S',
  });
  await h.control.approveCustomer(kyc.customer.id!);
  await deliver();
  const accounts = await h.waitForJourney(
    journey,
    (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress,
  );
  const depositAddressId = accounts.offramp!.depositAddress!.id;
  await h.control.approveDepositAddress(depositAddressId);
  await deliver();
  await h.waitForJourney(journey, (s) => s.stage === 'ACTIVE');
  return {
    receiver,
    journey,
    externalId: kyc.externalId,
    depositAddressId,
    deliver,
    async pay(amount) {
      const deposit = await h.control.simulateCryptoDeposit({
        depositAddressId,
        amount,
        currency: 'USDT',
        sender: SENDER,
      });
      await h.control.confirmDeposit(deposit.id);
      return deposit.id;
    },
    async tradeOf(depositId) {
      for await (const item of h.ramp.trades.iterate({ pageSize: 100 })) {
        const trade = await h.ramp.trades.detail({ id: item.id });
        if (trade.deposit.id === depositId)
          return { id: trade.id, ...(typeof trade.paymentId === 'string' ? { paymentId: trade.paymentId } : {}) };
      }
      throw new Error(`no trade for deposit ${depositId}`);
    },
  };
}
