/** Parsing of the flags several commands share. */

export function parsePort(name: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`${name} must be a port number, got '${value}'`);
  return port;
}
