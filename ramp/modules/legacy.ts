/**
 * The older generation (interface: "Versioning"): snake_case, every outcome HTTP 200 with the outcome
 * in the body's `status`. A failure `status` throws RampLegacyFailureError; success returns the whole
 * body (its fields are not shown). Paths other than create-va's are the real service's own.
 */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  LegacyCreateUserRequestSchema,
  LegacyCreateVaRequestSchema,
  LegacyCreateWhitelistRequestSchema,
  LegacyDepositAddressRequestSchema,
  LegacyResponseSchema,
  LegacyUpdateWhitelistRequestSchema,
  type LegacyCreateUserRequest,
  type LegacyCreateVaRequest,
  type LegacyCreateWhitelistRequest,
  type LegacyDepositAddressRequest,
  type LegacyResponse,
  type LegacyUpdateWhitelistRequest,
} from '../schemas';
import { parseResponseBody, validateRequest } from '../validation';
import { EndpointModule, type QueryParameters } from './endpoint';

const UserLookupSchema = z.object({ user_id: z.string().min(1) });

export class LegacyModule extends EndpointModule {
  /**
   * POST /create-va (path switchable in assumptions.ts). With `to_address` and `to_network` the
   * request must carry the wallet's `signature` over walletOwnershipMessage(...).
   */
  async createVa(request: LegacyCreateVaRequest): Promise<LegacyResponse> {
    return this.#post(this.http.assumptions.legacyCreateVaPath, LegacyCreateVaRequestSchema, request);
  }

  /** POST /create-user: answers the new `user_id`. */
  async createUser(request: LegacyCreateUserRequest): Promise<LegacyResponse> {
    return this.#post('/create-user', LegacyCreateUserRequestSchema, request);
  }

  /** GET /get-user by `user_id`. */
  async getUser(lookup: { user_id: string }): Promise<LegacyResponse> {
    const { user_id } = validateRequest(UserLookupSchema, lookup, { method: 'GET', path: '/get-user' });
    return this.#get('/get-user', [['userId', user_id]]);
  }

  /** POST /create-whitelist: answers the new `whitelist_id`. */
  async createWhitelist(request: LegacyCreateWhitelistRequest): Promise<LegacyResponse> {
    return this.#post('/create-whitelist', LegacyCreateWhitelistRequestSchema, request);
  }

  /** POST /update-whitelist. */
  async updateWhitelist(request: LegacyUpdateWhitelistRequest): Promise<LegacyResponse> {
    return this.#post('/update-whitelist', LegacyUpdateWhitelistRequestSchema, request);
  }

  /** GET /get-whitelist: a user's entries. */
  async getWhitelist(lookup: { user_id: string }): Promise<LegacyResponse> {
    const { user_id } = validateRequest(UserLookupSchema, lookup, { method: 'GET', path: '/get-whitelist' });
    return this.#get('/get-whitelist', [['userId', user_id]]);
  }

  /** GET /deposit-address: the partner's shared address for a currency and network. */
  async depositAddress(request: LegacyDepositAddressRequest): Promise<LegacyResponse> {
    const checked = validateRequest(LegacyDepositAddressRequestSchema, request, {
      method: 'GET',
      path: '/deposit-address',
    });
    return this.#get('/deposit-address', [
      ['currency', checked.currency],
      ['network', checked.network],
    ]);
  }

  async #post(path: string, schema: z.ZodType, request: unknown): Promise<LegacyResponse> {
    const body = validateRequest(schema, request, { method: 'POST', path });
    const response = await this.http.send({ method: 'POST', path, body: jsonBody(body), generation: 'legacy' });
    return parseResponseBody(LegacyResponseSchema, response.body, {
      method: 'POST',
      path,
      httpStatus: response.httpStatus,
    });
  }

  async #get(path: string, parameters: QueryParameters): Promise<LegacyResponse> {
    const response = await this.http.send({ method: 'GET', path, query: this.query(parameters), generation: 'legacy' });
    return parseResponseBody(LegacyResponseSchema, response.body, {
      method: 'GET',
      path,
      httpStatus: response.httpStatus,
    });
  }
}
