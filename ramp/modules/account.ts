/** Account information and configuration: balance, IP whitelist, callback URL, subscribed events. */
import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_NAMES } from '../events';
import { jsonBody } from '../http-client';
import {
  BalancesSchema,
  CallbackUrlRequestSchema,
  IpWhitelistSchema,
  SubscribedEventsSchema,
  SubscribedEventsUpdatedSchema,
  UnknownData,
  type Balance,
  type IpWhitelist,
  type SubscribedEvents,
  type SubscribedEventsUpdated,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule } from './endpoint';

/** POST /subscribed-events takes the names listed under Events, new or old. */
const SubscriptionRequestSchema = z.object({
  events: z.array(
    z
      .string()
      .refine((name) => SUBSCRIBABLE_EVENT_NAMES.includes(name), { message: 'not an event name the service accepts' }),
  ),
});

export class BalanceModule extends EndpointModule {
  /** GET /balance: one entry per currency. */
  async get(): Promise<Balance[]> {
    return this.getData('/balance', [], BalancesSchema);
  }
}

export class IpWhitelistModule extends EndpointModule {
  /** GET /ip-white-list. */
  async get(): Promise<IpWhitelist> {
    return this.getData('/ip-white-list', [], IpWhitelistSchema);
  }

  /** POST /ip-white-list: replaces the list; an empty list removes the restriction. Response not shown. */
  async set(ipWhiteList: string[]): Promise<unknown> {
    const body = validateRequest(IpWhitelistSchema, { ipWhiteList }, { method: 'POST', path: '/ip-white-list' });
    return this.http.request({ method: 'POST', path: '/ip-white-list', body: jsonBody(body) }, UnknownData);
  }
}

export class CallbackUrlModule extends EndpointModule {
  /** POST /callback-url: the HTTPS endpoint events are delivered to. Response not shown. */
  async set(callbackUrl: string): Promise<unknown> {
    const body = validateRequest(CallbackUrlRequestSchema, { callbackUrl }, { method: 'POST', path: '/callback-url' });
    return this.http.request({ method: 'POST', path: '/callback-url', body: jsonBody(body) }, UnknownData);
  }
}

export class SubscribedEventsModule extends EndpointModule {
  /** GET /subscribed-events. */
  async get(): Promise<SubscribedEvents> {
    return this.getData('/subscribed-events', [], SubscribedEventsSchema);
  }

  /** POST /subscribed-events: replaces the subscription. */
  async set(events: string[]): Promise<SubscribedEventsUpdated> {
    const body = validateRequest(SubscriptionRequestSchema, { events }, { method: 'POST', path: '/subscribed-events' });
    return this.http.request(
      { method: 'POST', path: '/subscribed-events', body: jsonBody(body) },
      SubscribedEventsUpdatedSchema,
    );
  }
}
