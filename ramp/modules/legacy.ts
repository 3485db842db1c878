/** The older generation (interface: "Versioning"): POST /create-va, snake_case, outcome in the 200 body. */
import { jsonBody } from '../http-client';
import { LegacyCreateVaRequestSchema, LegacyResponseSchema, type LegacyCreateVaRequest, type LegacyResponse } from '../schemas';
import { parseResponseBody, validateRequest } from '../validation';
import { EndpointModule } from './endpoint';

export class LegacyModule extends EndpointModule {
  /**
   * POST /create-va (path switchable in assumptions.ts). With `to_address` and `to_network` the
   * request must carry the wallet's `signature` over walletOwnershipMessage(...). A failure `status`
   * in the 200 body throws RampLegacyFailureError; success returns the whole body (its fields are not shown).
   */
  async createVa(request: LegacyCreateVaRequest): Promise<LegacyResponse> {
    const path = this.http.assumptions.legacyCreateVaPath;
    const body = validateRequest(LegacyCreateVaRequestSchema, request, { method: 'POST', path });
    const response = await this.http.send({ method: 'POST', path, body: jsonBody(body), generation: 'legacy' });
    return parseResponseBody(LegacyResponseSchema, response.body, { method: 'POST', path, httpStatus: response.httpStatus });
  }
}
