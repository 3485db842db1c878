/**
 * Account information and configuration (interface: "Balance", "IP whitelist", "Account information
 * and configuration").
 */
import { z } from 'zod';
import { DecimalString } from './common';

export const BalanceSchema = z.looseObject({
  balance: DecimalString,
  currency: z.string(),
});
export type Balance = z.infer<typeof BalanceSchema>;

/** GET /balance answers one object per currency. */
export const BalancesSchema = z.array(BalanceSchema);

/** GET /ip-white-list data, and the POST body. An empty list means no restriction. */
export const IpWhitelistSchema = z.looseObject({ ipWhiteList: z.array(z.string()) });
export type IpWhitelist = z.infer<typeof IpWhitelistSchema>;

/**
 * GET /subscribed-events data, and the POST body. Names stay plain strings: the service may answer
 * with names we do not know, and the older names are accepted too.
 */
export const SubscribedEventsSchema = z.looseObject({ events: z.array(z.string()) });
export type SubscribedEvents = z.infer<typeof SubscribedEventsSchema>;

/** POST /subscribed-events data. */
export const SubscribedEventsUpdatedSchema = z.looseObject({ message: z.string() });
export type SubscribedEventsUpdated = z.infer<typeof SubscribedEventsUpdatedSchema>;

/** POST /callback-url body: the interface requires an HTTPS URL. */
export const CallbackUrlRequestSchema = z.looseObject({
  callbackUrl: z.url({ protocol: /^https$/, error: 'callbackUrl must be an https:// URL' }),
});
