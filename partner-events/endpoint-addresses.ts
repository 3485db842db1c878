/**
 * Which addresses partner events may be delivered to. An endpoint URL comes from configuration, but a
 * URL naming an internal host (a metadata service at 169.254.169.254, a database on 10.x, the worker's
 * own loopback) would make the worker send signed requests into its own network. So private
 * (10/8, 172.16/12, 192.168/16, fc00::/7), loopback (127/8, ::1), link-local (169.254/16, fe80::/10)
 * and unspecified (0/8, ::) addresses are refused unless an operator opts in with
 * PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true (the local dev stack and the tests do: their endpoints
 * are on loopback).
 *
 * Checked twice: when the configuration is read (a literal address, or `localhost`), and at each
 * connection (a host name is resolved, and every address it resolves to must be public: DNS can
 * change after the start, and the connection is made to the very addresses that were checked).
 */
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';

/** The error code a refused address fails with; partner-events/deliver.ts reports it by name. */
export const PRIVATE_ADDRESS_CODE = 'ERAMPFLOW_PRIVATE_ADDRESS';

export const PRIVATE_ADDRESS_PROBLEM =
  'the host is or resolves to a private, loopback or link-local address (set PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true to allow it)';

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4, or v6 without brackets) is one partner events are not sent to by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = mappedIpv4(address);
  return mapped !== undefined ? refused.check(mapped, 'ipv4') : refused.check(address, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d, or ::ffff:7f00:1 as URLs write it). */
function mappedIpv4(address: string): string | undefined {
  const match = /^(?:0{0,4}:){0,5}:?ffff:(.+)$/i.exec(address) ?? /^::ffff:(.+)$/i.exec(address);
  if (!match) return undefined;
  const tail = match[1]!;
  if (isIP(tail) === 4) return tail;
  const words = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!words) return undefined;
  const high = parseInt(words[1]!, 16);
  const low = parseInt(words[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The configuration-time check of an endpoint URL's host, as `URL.hostname` gives it: a literal
 * address, or `localhost`. A host name is checked when it is connected to (guardedLookup).
 */
export function hostIsPrivate(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return isPrivateAddress(bare);
}

export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const resolveWithDns: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A `lookup` for the delivery connections (net.connect's option): resolves the host and refuses the
 * connection when any address it resolves to is private, so a name cannot point the worker inward,
 * at the start or later. `resolve` is injectable for tests; the system resolver otherwise.
 */
export function guardedLookup(resolve: ResolveAll = resolveWithDns): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error('host not found'), { code: 'ENOTFOUND' }), '', 0);
        if (addresses.some(({ address }) => isPrivateAddress(address))) return callback(privateAddressError(), '', 0);
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter(({ family }) => family === options.family)
            : addresses;
        if (wanted.length === 0)
          return callback(Object.assign(new Error('host not found'), { code: 'ENOTFOUND' }), '', 0);
        if (options.all)
          return (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(
            null,
            wanted,
          );
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** Refused without naming the host or the address: the URL may hold a token. */
export function privateAddressError(): NodeJS.ErrnoException {
  return Object.assign(new Error(PRIVATE_ADDRESS_PROBLEM), { code: PRIVATE_ADDRESS_CODE });
}
