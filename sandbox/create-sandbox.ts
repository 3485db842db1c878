/**
 * createSandbox: wires the store, clock, deliveries, domain, routes and HTTP server together and
 * starts listening. Used by the CLI, by end-to-end tests, the demo and benchmarks.
 */
import type { AddressInfo } from 'node:net';
import { Authenticator } from './auth/authenticate';
import { startAutopilot } from './autopilot';
import { VirtualClock } from './clock';
import { DomainContext } from './domain/context';
import { Deliveries } from './events/deliveries';
import { HttpDeliverer } from './events/http-deliverer';
import { FaultInjector } from './faults';
import { buildServer } from './http/server';
import { resolveOptions, type SandboxOptions } from './options';
import { autorampFlowRoutes } from './routes/autoramp-flows';
import { configurationRoutes } from './routes/configuration';
import { customerRoutes } from './routes/customers';
import { depositAddressRoutes } from './routes/deposit-addresses';
import { depositRoutes } from './routes/deposits';
import { kycPage } from './routes/kyc-page';
import { legacyRoutes } from './routes/legacy';
import { payoutAccountRoutes } from './routes/payout-accounts';
import { sandboxToolRoutes } from './routes/sandbox-tools';
import { simulationRoutes } from './routes/simulation';
import { tradeAndPaymentRoutes } from './routes/trades-and-payments';
import { virtualAccountRoutes } from './routes/virtual-accounts';
import { SandboxStore } from './state/store';
import { Views } from './state/views';

export interface SandboxClock {
  /** The virtual time. */
  now(): Date;
  /** Jumps forward, running everything that falls due in order; resolves with the new time. */
  advance(seconds: number): Promise<Date>;
  /** Resolves once every task already due has run. */
  settle(): Promise<void>;
}

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:43117 (no trailing slash). */
  url: string;
  host: string;
  port: number;
  clock: SandboxClock;
  /** Stops listening, cancels scheduled work and closes delivery connections. */
  close(): Promise<void>;
}

export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const { logger } = resolved;
  const store = new SandboxStore();
  for (const { partnerId } of resolved.credentials) {
    if (!store.partners.has(partnerId)) {
      store.partners.set(partnerId, {
        id: partnerId,
        ipWhiteList: [],
        callbackUrl: null,
        subscribedEvents: [],
        balances: new Map(),
        sharedDepositAddresses: new Map(),
      });
    }
  }
  const clock = new VirtualClock(resolved.clock, (label, error) =>
    logger.error({ task: label, err: error }, 'scheduled sandbox task failed'),
  );
  const deliverer = new HttpDeliverer(resolved.ackTimeoutMs);
  const deliveries = new Deliveries(
    store,
    clock,
    deliverer,
    {
      tickSeconds: resolved.deliveryTickSeconds,
      duplicate: resolved.duplicateDeliveries,
      outOfOrder: resolved.outOfOrderDeliveries,
      retrySpeedup: resolved.deliveryRetrySpeedup,
      random: resolved.deliveryLossRandom,
    },
    logger,
  );
  // The base URL is known only after listening; kycLinks read it lazily.
  let publicUrl = resolved.publicUrl ?? '';
  const views = new Views(store, (customerId) => `${publicUrl}/kyc/${customerId}`);
  const ctx = new DomainContext(store, clock, views, deliveries, {
    audWhitelistDelaySeconds: resolved.audWhitelistDelaySeconds,
    listOrder: resolved.listOrder,
  });
  if (resolved.autopilot !== undefined) startAutopilot(ctx, resolved.autopilot);

  const faults = new FaultInjector();
  if (resolved.rateLimit)
    for (const { partnerId } of resolved.credentials) faults.limitRate(partnerId, resolved.rateLimit);
  const authenticator = new Authenticator({
    credentials: resolved.credentials,
    acceptedSkewSeconds: resolved.acceptedSkewSeconds,
    debug: resolved.debug,
    ipWhitelistOf: (partnerId) => store.partner(partnerId).ipWhiteList,
    wallClock: resolved.wallClock,
  });
  const app = buildServer({
    authenticator,
    faults,
    logger,
    gateway401: resolved.gateway401,
    queryReading: { style: resolved.variants.queryParameters, maxPageSize: resolved.variants.maxPageSize },
    publicRoutes: [kycPage(ctx)],
    routes: [
      ...customerRoutes(ctx),
      ...virtualAccountRoutes(ctx),
      ...depositAddressRoutes(ctx),
      ...depositRoutes(ctx),
      ...autorampFlowRoutes(ctx),
      ...tradeAndPaymentRoutes(ctx),
      ...payoutAccountRoutes(ctx),
      ...configurationRoutes(ctx, resolved.httpCallbackHosts),
      ...legacyRoutes(ctx, resolved.acceptedSkewSeconds, resolved.wallClock, resolved.variants.legacyCreateVaPath),
      ...simulationRoutes(ctx),
      ...sandboxToolRoutes(ctx, deliveries, faults),
    ],
  });

  await app.listen({ host: resolved.host, port: resolved.port });
  const address = app.server.address() as AddressInfo;
  const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostInUrl}:${address.port}`;
  if (resolved.publicUrl === undefined) publicUrl = url;

  return {
    url,
    host: address.address,
    port: address.port,
    clock: {
      now: () => new Date(clock.now()),
      advance: async (seconds) => new Date(await clock.advance(seconds)),
      settle: () => clock.settle(),
    },
    close: async () => {
      clock.close();
      await app.close();
      await deliverer.close();
    },
  };
}
