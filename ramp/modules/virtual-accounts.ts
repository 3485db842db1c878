/** Virtual accounts (interface: "Virtual accounts"). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  AudWhitelistEntrySchema,
  UpdateAudWhitelistRequestSchema,
  type UpdateAudWhitelistRequest,
  CreateAudWhitelistRequestSchema,
  CreateVirtualAccountRequestSchema,
  MaybeCreatedIdSchema,
  UnknownData,
  VirtualAccountSchema,
  type AudWhitelistEntry,
  type CreateAudWhitelistRequest,
  type CreateVirtualAccountRequest,
  type MaybeCreatedId,
  type Page,
  type Pagination,
  type VirtualAccount,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

const VirtualAccountFiltersSchema = z.object({
  customerId: z.string().min(1).optional(),
  currency: z.string().min(1).optional(),
  status: z.string().min(1).optional(),
});
export type VirtualAccountFilters = z.infer<typeof VirtualAccountFiltersSchema>;

/**
 * The interface's endpoint list omits the virtual-account list and detail, yet its releases make the
 * list paginated with an optional `customerId`, and its events carry "virtual account detail". We
 * assume `/virtual-account/list` and `/virtual-account/detail`, shaped like their siblings.
 */
const VIRTUAL_ACCOUNT_LIST: ListEndpoint<VirtualAccountFilters, VirtualAccount> = {
  path: '/virtual-account/list',
  filters: VirtualAccountFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['currency', 'currency'],
    ['status', 'status'],
  ],
  item: VirtualAccountSchema,
};

export class VirtualAccountsModule extends EndpointModule {
  /**
   * POST /virtual-account/create. With a `whitelist` (AUD only) the service registers that source
   * account shortly after the provider confirms the account (`va.approved`). Response not shown.
   */
  async create(request: CreateVirtualAccountRequest): Promise<MaybeCreatedId> {
    const body = validateRequest(CreateVirtualAccountRequestSchema, request, {
      method: 'POST',
      path: '/virtual-account/create',
    });
    return this.http.request(
      { method: 'POST', path: '/virtual-account/create', body: jsonBody(body) },
      MaybeCreatedIdSchema,
    );
  }

  /** GET /virtual-account/detail (assumed path, see above). */
  async detail(lookup: { id: string }): Promise<VirtualAccount> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/virtual-account/detail' });
    return this.getData('/virtual-account/detail', [['id', id]], VirtualAccountSchema);
  }

  /** GET /virtual-account/list (assumed path): one page. */
  async list(params: Pagination & VirtualAccountFilters = {}): Promise<Page<VirtualAccount>> {
    return this.listPage(VIRTUAL_ACCOUNT_LIST, params);
  }

  iterate(params: Pagination & VirtualAccountFilters = {}): AsyncGenerator<VirtualAccount, void, undefined> {
    return this.iterateList(VIRTUAL_ACCOUNT_LIST, params);
  }

  /** GET /virtual-account/get-aud-whitelist: every whitelisted source of an AUD account (not paginated). */
  async audWhitelist(lookup: { virtualAccountId: string }): Promise<AudWhitelistEntry[]> {
    const id = validateRequest(RecordId, lookup.virtualAccountId, {
      method: 'GET',
      path: '/virtual-account/get-aud-whitelist',
    });
    return this.getData('/virtual-account/get-aud-whitelist', [['id', id]], z.array(AudWhitelistEntrySchema));
  }

  /** POST /virtual-account/create-aud-whitelist. The server sets `accountStatus`. Response not shown. */
  async createAudWhitelist(request: CreateAudWhitelistRequest): Promise<unknown> {
    const body = validateRequest(CreateAudWhitelistRequestSchema, request, {
      method: 'POST',
      path: '/virtual-account/create-aud-whitelist',
    });
    return this.http.request(
      { method: 'POST', path: '/virtual-account/create-aud-whitelist', body: jsonBody(body) },
      UnknownData,
    );
  }

  /** POST /virtual-account/update-aud-whitelist: the entry as the service now has it. */
  async updateAudWhitelist(request: UpdateAudWhitelistRequest): Promise<AudWhitelistEntry> {
    const body = validateRequest(UpdateAudWhitelistRequestSchema, request, {
      method: 'POST',
      path: '/virtual-account/update-aud-whitelist',
    });
    return this.http.request(
      { method: 'POST', path: '/virtual-account/update-aud-whitelist', body: jsonBody(body) },
      AudWhitelistEntrySchema,
    );
  }
}
