/**
 * The autopilot walks every object through the happy path by itself, each step a configurable delay
 * after the previous one: customers submit KYC and are approved, virtual accounts verified, deposit
 * addresses approved, deposits confirmed (an ACTION_REQUIRED deposit once an attachment arrives),
 * trades and payments settled. Steps run on the virtual clock, so advancing the clock drives them
 * and a delay of 0 runs them at once (benchmarks). A record moved by hand in the meantime is left
 * alone: each step re-checks the status it expects, and a trade or payment whose deposit was refunded
 * meanwhile is not settled (it never will be).
 */
import type { Change, DomainContext } from './domain/context';
import { approveCustomer, submitKyc } from './domain/customers';
import { confirmDeposit, fundsRefunded, settlePayment, settleTrade } from './domain/money-movement';
import { approveDepositAddress, approveVirtualAccount } from './domain/receiving-accounts';

export interface AutopilotDelays {
  /** From creation until the customer submits the KYC form (CREATED → PENDING). */
  kycSubmittedSeconds: number;
  /** From KYC submission until approval (PENDING → APPROVED). */
  customerApprovedSeconds: number;
  virtualAccountVerifiedSeconds: number;
  depositAddressApprovedSeconds: number;
  /** From receipt (or from an attachment on an ACTION_REQUIRED deposit) until confirmation. */
  depositConfirmedSeconds: number;
  tradeSettledSeconds: number;
  paymentSettledSeconds: number;
}

export const DEFAULT_AUTOPILOT_DELAYS: AutopilotDelays = {
  kycSubmittedSeconds: 2,
  customerApprovedSeconds: 3,
  virtualAccountVerifiedSeconds: 3,
  depositAddressApprovedSeconds: 3,
  depositConfirmedSeconds: 3,
  tradeSettledSeconds: 3,
  paymentSettledSeconds: 3,
};

/** Every step the same number of seconds after the previous one (0: all at once). */
export function uniformAutopilotDelays(seconds: number): AutopilotDelays {
  return {
    kycSubmittedSeconds: seconds,
    customerApprovedSeconds: seconds,
    virtualAccountVerifiedSeconds: seconds,
    depositAddressApprovedSeconds: seconds,
    depositConfirmedSeconds: seconds,
    tradeSettledSeconds: seconds,
    paymentSettledSeconds: seconds,
  };
}

export function startAutopilot(ctx: DomainContext, delays: AutopilotDelays): void {
  const later = (seconds: number, label: string, step: () => void): void => {
    ctx.clock.schedule(ctx.now() + seconds * 1000, `autopilot: ${label}`, step);
  };

  ctx.onChange((change: Change) => {
    const { partnerId, id } = change;
    const { store } = ctx;
    switch (change.kind) {
      case 'customer': {
        const status = store.customers.find(partnerId, id)?.status;
        if (status === 'CREATED') {
          later(delays.kycSubmittedSeconds, 'customer submits KYC', () => {
            if (store.customers.find(partnerId, id)?.status === 'CREATED') submitKyc(ctx, partnerId, id);
          });
        }
        if (status === 'PENDING') {
          later(delays.customerApprovedSeconds, 'approve customer', () => {
            if (store.customers.find(partnerId, id)?.status === 'PENDING') approveCustomer(ctx, partnerId, id);
          });
        }
        return;
      }
      case 'virtualAccount':
        if (store.virtualAccounts.find(partnerId, id)?.status === 'PENDING') {
          later(delays.virtualAccountVerifiedSeconds, 'verify virtual account', () => {
            if (store.virtualAccounts.find(partnerId, id)?.status === 'PENDING')
              approveVirtualAccount(ctx, partnerId, id);
          });
        }
        return;
      case 'depositAddress':
        if (store.depositAddresses.find(partnerId, id)?.status === 'PENDING') {
          later(delays.depositAddressApprovedSeconds, 'approve deposit address', () => {
            if (store.depositAddresses.find(partnerId, id)?.status === 'PENDING')
              approveDepositAddress(ctx, partnerId, id);
          });
        }
        return;
      case 'deposit': {
        const deposit = store.deposits.find(partnerId, id);
        const confirmable = (): boolean => {
          const current = store.deposits.find(partnerId, id);
          return (
            current?.status === 'RECEIVED' || (current?.status === 'ACTION_REQUIRED' && current.attachments.length > 0)
          );
        };
        if (deposit !== undefined && confirmable()) {
          later(delays.depositConfirmedSeconds, 'confirm deposit', () => {
            if (confirmable()) confirmDeposit(ctx, partnerId, id);
          });
        }
        return;
      }
      case 'trade': {
        const settleable = (): boolean => {
          const trade = store.trades.find(partnerId, id);
          return trade?.status === 'PENDING' && !fundsRefunded(ctx, partnerId, trade);
        };
        if (settleable()) {
          later(delays.tradeSettledSeconds, 'settle trade', () => {
            if (settleable()) settleTrade(ctx, partnerId, id);
          });
        }
        return;
      }
      case 'payment': {
        const settleable = (): boolean => {
          const payment = store.payments.find(partnerId, id);
          return payment?.status === 'PENDING' && !fundsRefunded(ctx, partnerId, payment);
        };
        if (settleable()) {
          later(delays.paymentSettledSeconds, 'settle payment', () => {
            if (settleable()) settlePayment(ctx, partnerId, id);
          });
        }
        return;
      }
    }
  });
}
