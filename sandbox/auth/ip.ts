/** Source addresses as the IP whitelist compares them. */
import { isIP } from 'node:net';

/** Node reports IPv4 peers on a dual-stack socket as `::ffff:a.b.c.d`; whitelists hold `a.b.c.d`. */
export function normaliseIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address.toLowerCase();
}

export function isValidIp(address: string): boolean {
  return isIP(address) !== 0;
}
