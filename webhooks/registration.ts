/**
 * `rampflow webhooks register`: tells the service where to deliver (POST /callback-url) and subscribes
 * to every new-format event (POST /subscribed-events). Subscribing to new names only means the service
 * does not send each event twice under two names (the receiver would count it once anyway).
 *
 * The interface requires HTTPS. Plain http is accepted only when RAMP_BASE_URL is the local sandbox
 * (a loopback host), which also accepts http callbacks on loopback.
 */
import { EVENT_NAMES, jsonBody, UnknownData, type RampClient } from '../ramp';

const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);

export class RegistrationRefused extends Error {}

/** The callback URL with its last path segment (the token) masked, for output and logs. */
export function redactCallbackUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/');
    if (segments.length > 1 && segments[segments.length - 1]) segments[segments.length - 1] = '***';
    return `${parsed.origin}${segments.join('/')}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * @param allowHttp accept a plain-http URL although RAMP_BASE_URL is not loopback: for a sandbox on a
 *   private network (docker compose), never for the real service, which delivers over HTTPS only.
 */
export function checkCallbackUrl(url: string, rampBaseUrl: string, token: string | undefined, allowHttp = false): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RegistrationRefused('--url is not a URL');
  }
  const sandbox = isLoopback(new URL(rampBaseUrl).hostname);
  if (parsed.protocol !== 'https:' && !((sandbox || allowHttp) && parsed.protocol === 'http:')) {
    throw new RegistrationRefused(
      `refusing a ${parsed.protocol}// callback URL: the service delivers over HTTPS only (http is accepted only when RAMP_BASE_URL is the local sandbox, or with --allow-http for a sandbox on a private network)`,
    );
  }
  if (parsed.search || parsed.hash)
    throw new RegistrationRefused('the callback URL must not carry a query or fragment');
  // A URL that cannot reach our route would leave every event undelivered until someone noticed.
  if (token !== undefined && parsed.pathname !== `/webhooks/ramp/${token}`) {
    throw new RegistrationRefused(
      "the callback URL's path must be /webhooks/ramp/<WEBHOOK_TOKEN> (it does not match WEBHOOK_TOKEN)",
    );
  }
  return parsed;
}

export interface Registration {
  callbackUrl: string;
  /** RAMP_BASE_URL: decides whether plain http is acceptable (the local sandbox only). */
  rampBaseUrl: string;
  /** WEBHOOK_TOKEN, when known: the URL's path must carry it. */
  token?: string;
  /** See checkCallbackUrl. */
  allowHttp?: boolean;
}

export async function registerWebhooks(ramp: RampClient, registration: Registration): Promise<{ events: string[] }> {
  const url = checkCallbackUrl(
    registration.callbackUrl,
    registration.rampBaseUrl,
    registration.token,
    registration.allowHttp,
  );
  if (url.protocol === 'https:') {
    await ramp.callbackUrl.set(registration.callbackUrl);
  } else {
    // The typed module insists on https, as the interface does; the sandbox's loopback exception
    // (checked above) goes through the request layer, still signed.
    await ramp.http.request(
      { method: 'POST', path: '/callback-url', body: jsonBody({ callbackUrl: registration.callbackUrl }) },
      UnknownData,
    );
  }
  await ramp.subscribedEvents.set([...EVENT_NAMES]);
  const { events } = await ramp.subscribedEvents.get();
  return { events };
}
