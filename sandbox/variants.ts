/**
 * Sandbox variants: a sandbox that answers, on one point the interface leaves open, differently from
 * what rampflow assumes (ramp/assumptions.ts), so `rampflow probe` and a worker given the probe's
 * override can be tried against a service that differs. One variant per assumption the probe checks;
 * each default is rampflow's assumption. `rampflow sandbox --variant name=value` and
 * SandboxOptions.variants take the same names.
 */
import type { SandboxOptions } from './options';
import { QUERY_PARAMETER_STYLES, type QueryParameterStyle } from './variant-types';

interface VariantDefinition {
  description: string;
  /** rampflow's assumption, which the default sandbox follows. */
  defaultValue: string;
  /** The sandbox options the value stands for; throws with what is expected. */
  options: (value: string) => Partial<SandboxOptions>;
}

function wholeNumber(name: string, min: number, max: number, value: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max))
    throw new Error(`variant ${name} expects a whole number from ${min} to ${max}`);
  return parsed;
}

export const SANDBOX_VARIANTS: Record<string, VariantDefinition> = {
  'query-parameters': {
    description: 'how query parameters are spelled: camelCase or snake_case',
    defaultValue: 'camelCase',
    options: (value) => {
      if (!(QUERY_PARAMETER_STYLES as readonly string[]).includes(value))
        throw new Error(`variant query-parameters expects ${QUERY_PARAMETER_STYLES.join(' or ')}`);
      return { variants: { queryParameters: value as QueryParameterStyle } };
    },
  },
  'max-page-size': {
    description: 'the largest pageSize accepted',
    defaultValue: '100',
    options: (value) => ({ variants: { maxPageSize: wholeNumber('max-page-size', 1, 100, value) } }),
  },
  'accepted-skew': {
    description: 'the X-Timestamp skew accepted either way, in seconds (nonces are remembered twice as long)',
    defaultValue: '60',
    options: (value) => ({ acceptedSkewSeconds: wholeNumber('accepted-skew', 1, 3600, value) }),
  },
  'list-order': {
    description: 'the order of the customer, deposit, trade and autoramp-flow lists: newest-first or oldest-first',
    defaultValue: 'newest-first',
    options: (value) => {
      if (value !== 'newest-first' && value !== 'oldest-first')
        throw new Error('variant list-order expects newest-first or oldest-first');
      return { listOrder: value };
    },
  },
  'legacy-create-va-path': {
    description: "the path of the older generation's create-va",
    defaultValue: '/create-va',
    options: (value) => {
      if (!/^\/[A-Za-z0-9\-._~/]{1,200}$/.test(value))
        throw new Error('variant legacy-create-va-path expects a path starting with /');
      return { variants: { legacyCreateVaPath: value } };
    },
  },
};

/** The options `name=value` pairs stand for, later pairs winning; throws on an unknown name or a bad value. */
export function variantOptions(pairs: readonly string[]): Partial<SandboxOptions> {
  let options: Partial<SandboxOptions> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at) : pair;
    const definition = SANDBOX_VARIANTS[name];
    if (definition === undefined || at <= 0)
      throw new Error(
        `expected --variant <name>=<value> with a name among ${Object.keys(SANDBOX_VARIANTS).join(', ')}`,
      );
    const chosen = definition.options(pair.slice(at + 1));
    options = { ...options, ...chosen, variants: { ...options.variants, ...chosen.variants } };
  }
  return options;
}

/** The parameter name the service reads where the interface's label is `name` (camelCase). */
export function parameterNameIn(style: QueryParameterStyle, name: string): string {
  return style === 'snake_case' ? name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) : name;
}
