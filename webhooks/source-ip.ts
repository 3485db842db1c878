/**
 * WEBHOOK_ALLOWED_IPS: the addresses (or CIDR ranges) allowed to deliver webhooks; empty allows any.
 * The check is on the TCP peer address: behind a reverse proxy or load balancer that is the proxy's,
 * so let the proxy enforce the list there (and leave this one empty).
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

/** Builds the policy; a malformed entry fails start-up with one line naming it. */
export function sourceIpPolicy(entries: string[]): SourceIpPolicy {
  if (entries.length === 0) return { allows: () => true };
  const allowed = new BlockList();
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const base = unmapped(address ?? '');
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = isIP(base) === 4 ? 32 : 128;
    if (isIP(base) === 0 || rest.length > 0 || (bits !== undefined && (!Number.isInteger(bits) || bits < 0 || bits > maxBits))) {
      throw new ConfigError([`WEBHOOK_ALLOWED_IPS: "${entry}" is not an IP address or CIDR range`]);
    }
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
