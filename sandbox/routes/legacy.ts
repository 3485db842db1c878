/**
 * The older generation's POST /create-va (interface: "Virtual accounts", "Crypto address ownership
 * proof", "Older generation"): snake_case, HTTP 200 for every outcome with the outcome in `status`.
 * Fields beyond `to_address`, `to_network` and `signature` are not shown; the sandbox takes
 * `user_id` (the customer id, also the user identifier in the signed message), `currency`, and
 * optionally `to_currency` (default USDT). With `to_address` and `to_network` the new account feeds
 * that wallet: the address is registered for the customer and an ONRAMP flow links them.
 */
import { z } from 'zod';
import { walletOwnershipMessage, verifyWalletOwnership } from '../../ramp/wallet-ownership';
import type { DomainContext } from '../domain/context';
import { createFlow } from '../domain/autoramp-flows';
import { createCryptoAddress } from '../domain/payout-accounts';
import { createVirtualAccount } from '../domain/receiving-accounts';
import { failed, invalidParameters } from '../http/errors';
import { CryptoCurrencySchema, FiatCurrencySchema, NetworkSchema } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const CreateVaBody = z.object({
  user_id: z.string().min(1),
  currency: FiatCurrencySchema,
  to_address: z.string().min(1).optional(),
  to_network: NetworkSchema.optional(),
  to_currency: CryptoCurrencySchema.optional(),
  signature: z.string().min(1).optional(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The message is dated "today" in UTC (DESIGN). Today is the client's wall-clock day, not the
 * virtual clock's. A signature made just before midnight and checked just after is accepted: the
 * day of the request's accepted skew window counts too.
 */
function ownershipProven(address: string, network: 'ETH' | 'TRX', userId: string, signature: string, acceptedSkewSeconds: number, now: number): boolean {
  const days = new Set([new Date(now), new Date(now - acceptedSkewSeconds * 1000)].map((date) => Math.floor(date.getTime() / DAY_MS)));
  return [...days].some((day) => verifyWalletOwnership({ network, address, message: walletOwnershipMessage(address, userId, new Date(day * DAY_MS)), signature }));
}

export function legacyRoutes(ctx: DomainContext, acceptedSkewSeconds: number, wallClock: () => number): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: '/create-va',
      generation: 'old',
      handler: (request) => {
        const body = jsonBody(request, CreateVaBody);
        const wantsWallet = body.to_address !== undefined || body.to_network !== undefined;
        if (wantsWallet && (body.to_address === undefined || body.to_network === undefined)) {
          throw invalidParameters('to_address and to_network go together');
        }
        if (body.to_address !== undefined && body.to_network !== undefined) {
          if (body.signature === undefined) throw invalidParameters('signature (wallet ownership proof) is required with to_address');
          if (!ownershipProven(body.to_address, body.to_network, body.user_id, body.signature, acceptedSkewSeconds, wallClock())) {
            throw failed('the wallet ownership signature is invalid');
          }
        }
        const account = createVirtualAccount(ctx, request.partnerId, { customerId: body.user_id, currency: body.currency });
        let flowId: string | null = null;
        if (body.to_address !== undefined && body.to_network !== undefined) {
          const toAddress = body.to_address;
          const existing = ctx.store.cryptoAddresses.list(request.partnerId, (row) => row.customerId === body.user_id && row.address === toAddress && row.network === body.to_network)[0];
          const exit =
            existing ??
            createCryptoAddress(ctx, request.partnerId, { customerId: body.user_id, currency: body.to_currency ?? 'USDT', network: body.to_network, address: toAddress });
          flowId = createFlow(ctx, request.partnerId, { type: 'ONRAMP', from: account.id, to: exit.id }).id;
        }
        return { va_id: account.id, user_id: account.customerId, currency: account.currency, va_status: account.status, autoramp_flow_id: flowId };
      },
    },
  ];
}
