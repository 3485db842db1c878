/**
 * A delivery's source address, and WEBHOOK_ALLOWED_IPS: the addresses (or CIDR ranges) allowed to
 * deliver webhooks; empty allows any.
 *
 * The source is the TCP peer, unless that peer is one of WEBHOOK_TRUSTED_PROXIES: then it is the
 * address that proxy saw (X-Forwarded-For, read from the right and past trusted proxies only, by
 * fastify's `trustProxy`), so the allow list and the receiver's per-source budget see the service
 * and a forger as two addresses behind a load balancer too. A peer that is not trusted cannot set
 * its own source by sending the header.
 */
import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../config/env';

export interface SourceIpPolicy {
  allows(address: string | undefined): boolean;
}

/** An IPv4 peer of a dual-stack socket shows as ::ffff:a.b.c.d. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

const family = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 4 ? 'ipv4' : 'ipv6');

/** An address or CIDR range, checked; a malformed one fails start-up with one line naming `variable` and the entry. */
function addressEntry(variable: string, entry: string): { base: string; bits: number | undefined } {
  const [address, prefix, ...rest] = entry.split('/');
  const base = unmapped(address ?? '');
  const bits = prefix === undefined ? undefined : Number(prefix);
  const maxBits = isIP(base) === 4 ? 32 : 128;
  if (
    isIP(base) === 0 ||
    rest.length > 0 ||
    (bits !== undefined && (!Number.isInteger(bits) || bits < 0 || bits > maxBits))
  ) {
    throw new ConfigError([`${variable}: "${entry}" is not an IP address or CIDR range`]);
  }
  return { base, bits };
}

/** WEBHOOK_TRUSTED_PROXIES as fastify's `trustProxy` takes it: false when empty (the TCP peer is the source). */
export function trustedProxies(entries: string[]): string[] | false {
  for (const entry of entries) addressEntry('WEBHOOK_TRUSTED_PROXIES', entry);
  return entries.length === 0 ? false : entries;
}

/** Builds the policy; a malformed entry fails start-up with one line naming it. */
export function sourceIpPolicy(entries: string[]): SourceIpPolicy {
  if (entries.length === 0) return { allows: () => true };
  const allowed = new BlockList();
  for (const entry of entries) {
    const { base, bits } = addressEntry('WEBHOOK_ALLOWED_IPS', entry);
    if (bits === undefined) allowed.addAddress(base, family(base));
    else allowed.addSubnet(base, bits, family(base));
  }
  return {
    allows(address) {
      if (!address) return false;
      const peer = unmapped(address);
      return isIP(peer) !== 0 && allowed.check(peer, family(peer));
    },
  };
}
