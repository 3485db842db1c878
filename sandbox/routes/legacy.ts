/**
 * The older generation (interface: "Virtual accounts", "Crypto address ownership proof", "Older
 * generation"): snake_case, HTTP 200 for every outcome with the outcome in `status`. Besides
 * create-va, the real service's users, withdrawal whitelist and shared deposit address, with the
 * shapes rampflow assumes (ramp/schemas/legacy.ts): a user is a customer (`user_id` its id).
 *
 * POST /create-va:
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
import { createCustomer } from '../domain/customers';
import { newChainAddress, newId } from '../identifiers';
import { failed, invalidParameters, notFound } from '../http/errors';
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

const CreateUserBody = z.object({
  email: z.email(),
  name: z.string().min(1).optional(),
  external_id: z.string().min(1).max(128).optional(),
});
const CreateWhitelistBody = z.object({
  user_id: z.string().min(1),
  address: z.string().min(1),
  network: NetworkSchema,
  label: z.string().optional(),
});
const UpdateWhitelistBody = z.object({
  whitelist_id: z.string().min(1),
  address: z.string().min(1).optional(),
  label: z.string().optional(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The message is dated "today" in UTC (DESIGN). Today is the client's wall-clock day, not the
 * virtual clock's. A signature made just before midnight and checked just after is accepted: the
 * day of the request's accepted skew window counts too.
 */
function ownershipProven(
  address: string,
  network: 'ETH' | 'TRX',
  userId: string,
  signature: string,
  acceptedSkewSeconds: number,
  now: number,
): boolean {
  const days = new Set(
    [new Date(now), new Date(now - acceptedSkewSeconds * 1000)].map((date) => Math.floor(date.getTime() / DAY_MS)),
  );
  return [...days].some((day) =>
    verifyWalletOwnership({
      network,
      address,
      message: walletOwnershipMessage(address, userId, new Date(day * DAY_MS)),
      signature,
    }),
  );
}

export function legacyRoutes(
  ctx: DomainContext,
  acceptedSkewSeconds: number,
  wallClock: () => number,
  createVaPath: string,
): RouteDefinition[] {
  return [
    {
      method: 'POST',
      // Where the older generation's create-va lives is not shown (the `legacy-create-va-path` variant).
      path: createVaPath,
      generation: 'old',
      handler: (request) => {
        const body = jsonBody(request, CreateVaBody);
        const wantsWallet = body.to_address !== undefined || body.to_network !== undefined;
        if (wantsWallet && (body.to_address === undefined || body.to_network === undefined)) {
          throw invalidParameters('to_address and to_network go together');
        }
        if (body.to_address !== undefined && body.to_network !== undefined) {
          if (body.signature === undefined)
            throw invalidParameters('signature (wallet ownership proof) is required with to_address');
          if (
            !ownershipProven(
              body.to_address,
              body.to_network,
              body.user_id,
              body.signature,
              acceptedSkewSeconds,
              wallClock(),
            )
          ) {
            throw failed('the wallet ownership signature is invalid');
          }
        }
        const account = createVirtualAccount(ctx, request.partnerId, {
          customerId: body.user_id,
          currency: body.currency,
        });
        let flowId: string | null = null;
        if (body.to_address !== undefined && body.to_network !== undefined) {
          const toAddress = body.to_address;
          const existing = ctx.store.cryptoAddresses.list(
            request.partnerId,
            (row) => row.customerId === body.user_id && row.address === toAddress && row.network === body.to_network,
          )[0];
          const exit =
            existing ??
            createCryptoAddress(ctx, request.partnerId, {
              customerId: body.user_id,
              currency: body.to_currency ?? 'USDT',
              network: body.to_network,
              address: toAddress,
            });
          flowId = createFlow(ctx, request.partnerId, { type: 'ONRAMP', from: account.id, to: exit.id }).id;
        }
        return {
          va_id: account.id,
          user_id: account.customerId,
          currency: account.currency,
          va_status: account.status,
          autoramp_flow_id: flowId,
        };
      },
    },
    {
      method: 'POST',
      path: '/create-user',
      generation: 'old',
      handler: (request) => {
        const body = jsonBody(request, CreateUserBody);
        const customer = createCustomer(ctx, request.partnerId, {
          email: body.email,
          realName: body.name,
          externalId: body.external_id,
        });
        return { user_id: customer.id };
      },
    },
    {
      method: 'GET',
      path: '/get-user',
      generation: 'old',
      handler: ({ partnerId, query }) => {
        const customer = ctx.store.customers.find(partnerId, query.required('user_id'));
        if (customer === undefined) throw notFound('user');
        return {
          user_id: customer.id,
          email: customer.email,
          name: customer.realName,
          external_id: customer.externalId,
          user_status: customer.status,
        };
      },
    },
    {
      method: 'POST',
      path: '/create-whitelist',
      generation: 'old',
      handler: (request) => {
        const body = jsonBody(request, CreateWhitelistBody);
        ctx.requireCustomer(request.partnerId, body.user_id, false);
        const now = ctx.now();
        const entry = ctx.store.legacyWhitelist.insert({
          id: newId(),
          partnerId: request.partnerId,
          userId: body.user_id,
          address: body.address,
          network: body.network,
          label: body.label ?? '',
          createTime: now,
          updateTime: now,
        });
        return { whitelist_id: entry.id };
      },
    },
    {
      method: 'POST',
      path: '/update-whitelist',
      generation: 'old',
      handler: (request) => {
        const body = jsonBody(request, UpdateWhitelistBody);
        const entry = ctx.store.legacyWhitelist.find(request.partnerId, body.whitelist_id);
        if (entry === undefined) throw notFound('whitelist entry');
        if (body.address !== undefined) entry.address = body.address;
        if (body.label !== undefined) entry.label = body.label;
        entry.updateTime = ctx.now();
        return { whitelist_id: entry.id };
      },
    },
    {
      method: 'GET',
      path: '/get-whitelist',
      generation: 'old',
      handler: ({ partnerId, query }) => {
        const userId = query.required('user_id');
        const entries = ctx.store.legacyWhitelist.list(partnerId, (entry) => entry.userId === userId);
        return {
          whitelist: entries.map((entry) => ({
            whitelist_id: entry.id,
            address: entry.address,
            network: entry.network,
            label: entry.label,
          })),
        };
      },
    },
    {
      method: 'GET',
      path: '/deposit-address',
      generation: 'old',
      handler: ({ partnerId, query }) => {
        const currency = query.required('currency');
        const network = query.required('network');
        if (!CryptoCurrencySchema.safeParse(currency).success) throw invalidParameters('currency must be USDT or USDC');
        const parsedNetwork = NetworkSchema.safeParse(network);
        if (!parsedNetwork.success) throw invalidParameters('network must be ETH or TRX');
        const shared = ctx.store.partner(partnerId).sharedDepositAddresses;
        const key = `${currency}/${network}`;
        if (!shared.has(key)) shared.set(key, newChainAddress(parsedNetwork.data));
        return { currency, network, address: shared.get(key) };
      },
    },
  ];
}
