/**
 * What every endpoint module shares: the request layer and the helpers that turn typed parameters
 * into the raw query, with the query parameter names taken from the assumptions (assumptions.ts).
 */
import { z } from 'zod';
import type { QueryParameterNames } from '../assumptions';
import type { RampHttpClient } from '../http-client';
import { iteratePages } from '../pagination';
import { buildRawQuery, type QueryValue } from '../query';
import { PaginationSchema, pageOf, type Page, type Pagination } from '../schemas';
import { validateRequest } from '../validation';

export type QueryParameters = ReadonlyArray<readonly [name: keyof QueryParameterNames, value: QueryValue]>;

/** A paginated list endpoint: its path, its filter schema and the order its filters go in the query. */
export interface ListEndpoint<Filters extends Record<string, QueryValue>, Item extends { id: string }> {
  path: string;
  filters: z.ZodType<Filters>;
  /** Filter fields in query order, each with the parameter name it is sent under. */
  filterOrder: ReadonlyArray<readonly [field: keyof Filters & string, name: keyof QueryParameterNames]>;
  item: z.ZodType<Item>;
}

export abstract class EndpointModule {
  constructor(protected readonly http: RampHttpClient) {}

  /** The raw query for parameters in the order given, under the deployment's parameter names. */
  protected query(parameters: QueryParameters): string {
    const names = this.http.assumptions.queryParameterNames;
    return buildRawQuery(parameters.map(([name, value]) => [names[name], value] as const));
  }

  protected async getData<S extends z.ZodType>(
    path: string,
    parameters: QueryParameters,
    data: S,
  ): Promise<z.infer<S>> {
    return this.http.request({ method: 'GET', path, query: this.query(parameters) }, data);
  }

  /** Fetches one page after checking pagination and filters; the page is pageNum, pageSize, then the filters. */
  protected async listPage<F extends Record<string, QueryValue>, I extends { id: string }>(
    endpoint: ListEndpoint<F, I>,
    params: Pagination & Partial<F> = {},
  ): Promise<Page<I>> {
    const checked: Pagination & F = validateRequest(PaginationSchema.and(endpoint.filters), params, {
      method: 'GET',
      path: endpoint.path,
    });
    const parameters: QueryParameters = [
      ['pageNum', checked.pageNum],
      // A service that accepts less than rampflow asks for gets its own largest page (RampAssumptions.maxPageSize).
      [
        'pageSize',
        checked.pageSize === undefined ? undefined : Math.min(checked.pageSize, this.http.assumptions.maxPageSize),
      ],
      ...endpoint.filterOrder.map(([field, name]) => [name, checked[field]] as const),
    ];
    return this.getData(endpoint.path, parameters, pageOf(endpoint.item));
  }

  /** Walks every page from `params.pageNum` (default 1), `params.pageSize` at a time (default 100). */
  protected iterateList<F extends Record<string, QueryValue>, I extends { id: string }>(
    endpoint: ListEndpoint<F, I>,
    params: Pagination & Partial<F> = {},
  ): AsyncGenerator<I, void, undefined> {
    // Checked here, before the first request, rather than when the first page is fetched.
    validateRequest(PaginationSchema.and(endpoint.filters), params, { method: 'GET', path: endpoint.path });
    return iteratePages((page) => this.listPage(endpoint, { ...params, ...page }), params);
  }
}

/** A detail look-up's record id: a non-empty string. */
export const RecordId = z.string().min(1);
