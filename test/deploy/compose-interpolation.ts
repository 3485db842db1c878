/**
 * Compose's variable interpolation, as `docker compose config` applies it to every string value:
 * `${VAR}`, `${VAR:-default}` / `${VAR-default}`, `${VAR:?error}` / `${VAR?error}`, `$VAR`, and `$$`
 * for a literal dollar. With ":", an empty value counts as unset.
 */
const REFERENCE = /\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g;

function interpolateString(value: string, env: Record<string, string>): string {
  return value.replace(
    REFERENCE,
    (
      match,
      braced: string | undefined,
      colon: string | undefined,
      kind: string | undefined,
      word: string | undefined,
      bare: string | undefined,
    ) => {
      if (match === '$$') return '$';
      const name = (braced ?? bare)!;
      const current = env[name];
      const unset = current === undefined || (colon === ':' && current === '');
      if (!unset) return current;
      if (kind === '-') return word!;
      if (kind === '?') throw new Error(`${name}: ${word || 'required'}`);
      return '';
    },
  );
}

export function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolateString(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  }
  return value;
}
