/**
 * What a sandbox variant can switch (sandbox/variants.ts names them for `--variant`), apart from the
 * options the sandbox already had: kept apart so the options and the variants need not import each other.
 */

/** How the service spells the query parameters the interface gives only by label. */
export const QUERY_PARAMETER_STYLES = ['camelCase', 'snake_case'] as const;
export type QueryParameterStyle = (typeof QUERY_PARAMETER_STYLES)[number];

export interface SandboxVariants {
  /** `snake_case`: the service reads `external_id`, `customer_id`, `page_size`... where rampflow sends camelCase. */
  queryParameters?: QueryParameterStyle;
  /** The largest pageSize the service accepts (interface: 100); a larger one is refused as INVALID_PARAMETERS. */
  maxPageSize?: number;
  /** The path the older generation's create-va lives at (rampflow assumes `/create-va`). */
  legacyCreateVaPath?: string;
}
