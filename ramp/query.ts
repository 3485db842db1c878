/**
 * Raw query strings, built once and then signed and sent as they are.
 *
 * The service signs the query exactly as it appears in the URL, so we choose the order (the order
 * the caller's parameters are listed in) and the encoding (RFC 3986 percent-encoding of everything
 * but unreserved characters) here, and nothing downstream may touch them.
 */

export type QueryValue = string | number | undefined;

/** Percent-encodes a name or value: only A-Z a-z 0-9 - . _ ~ stay literal. */
export function encodeQueryComponent(value: string): string {
  // encodeURIComponent leaves ! ' ( ) * unencoded; RFC 3986 reserves them, so encode them too.
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `name=value` pairs joined by `&`, in the order given, skipping undefined values. */
export function buildRawQuery(parameters: ReadonlyArray<readonly [name: string, value: QueryValue]>): string {
  return parameters
    .filter((parameter): parameter is readonly [string, string | number] => parameter[1] !== undefined)
    .map(([name, value]) => `${encodeQueryComponent(name)}=${encodeQueryComponent(String(value))}`)
    .join('&');
}
