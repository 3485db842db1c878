/** Account information and configuration (interface: "Account information and configuration"). */
import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_NAMES } from '../../ramp/events';
import { isValidIp } from '../auth/ip';
import { ALL_CURRENCIES, formatAmount } from '../currencies';
import type { DomainContext } from '../domain/context';
import { invalidParameters } from '../http/errors';
import { jsonBody, type RouteDefinition } from '../http/route';

const IpWhitelistBody = z.object({ ipWhiteList: z.array(z.string().refine(isValidIp, 'must be an IP address')) });

const SubscribedEventsBody = z.object({
  events: z.array(
    z.string().refine((name) => SUBSCRIBABLE_EVENT_NAMES.includes(name), 'is not an event name the service knows'),
  ),
});

const CallbackUrlBody = z.object({ callbackUrl: z.string() });

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/**
 * The interface asks for an HTTPS URL. Because this is a sandbox, plain http is also accepted when
 * the host is loopback, where a local receiver runs without a certificate, or one the sandbox was
 * told to trust (a receiver reached by name on a private network, as in docker compose).
 */
function validCallbackUrl(text: string, httpHosts: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidParameters('callbackUrl is not a URL');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && (loopback || httpHosts.includes(url.hostname))))
    return url.toString();
  throw invalidParameters('callbackUrl must be an https:// URL (http:// is accepted for loopback hosts only)');
}

export function configurationRoutes(ctx: DomainContext, httpCallbackHosts: readonly string[]): RouteDefinition[] {
  const { store } = ctx;
  return [
    {
      // One object per currency the sandbox knows, zero included, so the list has a stable shape.
      method: 'GET',
      path: '/balance',
      handler: ({ partnerId }) => {
        const balances = store.partner(partnerId).balances;
        return ALL_CURRENCIES.map((currency) => ({
          balance: formatAmount(balances.get(currency) ?? 0n, currency),
          currency,
        }));
      },
    },
    {
      method: 'GET',
      path: '/ip-white-list',
      handler: ({ partnerId }) => ({ ipWhiteList: [...store.partner(partnerId).ipWhiteList] }),
    },
    {
      // An empty list lifts the restriction. The response shape is not shown; the sandbox echoes the list.
      method: 'POST',
      path: '/ip-white-list',
      handler: (request) => {
        const { ipWhiteList } = jsonBody(request, IpWhitelistBody);
        store.partner(request.partnerId).ipWhiteList = [...new Set(ipWhiteList)];
        return { ipWhiteList: [...store.partner(request.partnerId).ipWhiteList] };
      },
    },
    {
      method: 'GET',
      path: '/subscribed-events',
      handler: ({ partnerId }) => ({ events: [...store.partner(partnerId).subscribedEvents] }),
    },
    {
      // Replaces the subscription with the given names (older names kept as given: deliveries use them).
      method: 'POST',
      path: '/subscribed-events',
      handler: (request) => {
        const { events } = jsonBody(request, SubscribedEventsBody);
        store.partner(request.partnerId).subscribedEvents = [...new Set(events)];
        return { message: `subscribed to ${store.partner(request.partnerId).subscribedEvents.length} event types` };
      },
    },
    {
      method: 'POST',
      path: '/callback-url',
      handler: (request) => {
        const callbackUrl = validCallbackUrl(jsonBody(request, CallbackUrlBody).callbackUrl, httpCallbackHosts);
        store.partner(request.partnerId).callbackUrl = callbackUrl;
        return { callbackUrl };
      },
    },
    // The real service's setup endpoints (shapes assumed, ramp/schemas/setup.ts).
    { method: 'GET', path: '/health', handler: () => ({ status: 'UP' }) },
    { method: 'GET', path: '/basic-info', handler: ({ partnerId }) => ({ id: partnerId, name: 'sandbox partner' }) },
    {
      method: 'GET',
      path: '/callback-url',
      handler: ({ partnerId }) => ({ callbackUrl: store.partner(partnerId).callbackUrl }),
    },
  ];
}
