/**
 * Simulation endpoints: each drives one step the real service takes on its own (a KYC decision, the
 * banking provider's confirmation, money arriving, a trade settling, a confirmed deposit refunded)
 * and fires the same events.
 * They are signed and scoped like every other endpoint. Each answers the record's detail view.
 * Besides the steps, one deletes a customer (a dashboard action), and two register the customer's
 * own bank accounts and crypto addresses; they predate the real service's POST /bank-account/add and
 * /crypto-address/add (routes/payout-accounts.ts), which do the same and are what rampflow uses.
 */
import type { DomainContext } from '../domain/context';
import { approveCustomer, deleteCustomer, rejectCustomer } from '../domain/customers';
import {
  confirmDeposit,
  failPayment,
  receiveDeposit,
  refundDeposit,
  rejectDeposit,
  requireDepositAction,
  settlePayment,
  settleTrade,
} from '../domain/money-movement';
import { createBankAccount, createCryptoAddress } from '../domain/payout-accounts';
import {
  approveDepositAddress,
  approveVirtualAccount,
  rejectDepositAddress,
  rejectVirtualAccount,
} from '../domain/receiving-accounts';
import {
  FailPaymentBody,
  IdBody,
  NewBankAccountBody,
  NewCryptoAddressBody,
  SimulatedDepositBody,
} from '../http/request-schemas';
import { jsonBody, type RouteContext, type RouteDefinition } from '../http/route';

export function simulationRoutes(ctx: DomainContext): RouteDefinition[] {
  const { views } = ctx;
  /** A step that takes `{id}` and answers the moved record's view. */
  const step = <R>(
    path: string,
    move: (ctx: DomainContext, partnerId: string, id: string) => R,
    view: (record: R) => unknown,
  ): RouteDefinition => ({
    method: 'POST',
    path,
    handler: (request: RouteContext) => view(move(ctx, request.partnerId, jsonBody(request, IdBody).id)),
  });
  return [
    step('/sandbox/customer/approve', approveCustomer, (r) => views.customer(r)),
    step('/sandbox/customer/reject', rejectCustomer, (r) => views.customer(r)),
    step('/sandbox/customer/delete', deleteCustomer, (r) => views.customer(r)),
    step('/sandbox/virtual-account/approve', approveVirtualAccount, (r) => views.virtualAccount(r)),
    step('/sandbox/virtual-account/reject', rejectVirtualAccount, (r) => views.virtualAccount(r)),
    step('/sandbox/deposit-address/approve', approveDepositAddress, (r) => views.depositAddress(r)),
    step('/sandbox/deposit-address/reject', rejectDepositAddress, (r) => views.depositAddress(r)),
    {
      method: 'POST',
      path: '/sandbox/deposit/simulate',
      handler: (request) =>
        views.deposit(receiveDeposit(ctx, request.partnerId, jsonBody(request, SimulatedDepositBody))),
    },
    step('/sandbox/deposit/confirm', confirmDeposit, (r) => views.deposit(r)),
    step('/sandbox/deposit/reject', rejectDeposit, (r) => views.deposit(r)),
    step('/sandbox/deposit/require-action', requireDepositAction, (r) => views.deposit(r)),
    step('/sandbox/deposit/refund', refundDeposit, (r) => views.deposit(r)),
    step('/sandbox/trade/settle', settleTrade, (r) => views.trade(r)),
    step('/sandbox/payment/settle', settlePayment, (r) => views.payment(r)),
    {
      method: 'POST',
      path: '/sandbox/payment/fail',
      handler: (request) => {
        const body = jsonBody(request, FailPaymentBody);
        return views.payment(
          failPayment(ctx, request.partnerId, body.id, body.reason ?? 'rejected by the beneficiary bank'),
        );
      },
    },
    {
      method: 'POST',
      path: '/sandbox/bank-account/create',
      handler: (request) =>
        views.bankAccount(createBankAccount(ctx, request.partnerId, jsonBody(request, NewBankAccountBody))),
    },
    {
      method: 'POST',
      path: '/sandbox/crypto-address/create',
      handler: (request) =>
        views.cryptoAddress(createCryptoAddress(ctx, request.partnerId, jsonBody(request, NewCryptoAddressBody))),
    },
  ];
}
