/** Bank accounts (interface: "Bank accounts", and the real service's add and detail). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  AddBankAccountRequestSchema,
  BANK_ACCOUNT_CURRENCIES,
  BankAccountSchema,
  MaybeCreatedIdSchema,
  type AddBankAccountRequest,
  type BankAccount,
  type MaybeCreatedId,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

const BankAccountFiltersSchema = z.object({
  /** Omit to list the accounts of every customer of the partner. */
  customerId: z.string().min(1).optional(),
  currency: z.enum(BANK_ACCOUNT_CURRENCIES).optional(),
});
export type BankAccountFilters = z.infer<typeof BankAccountFiltersSchema>;

const BANK_ACCOUNT_LIST: ListEndpoint<BankAccountFilters, BankAccount> = {
  path: '/bank-account/list',
  filters: BankAccountFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['currency', 'currency'],
  ],
  item: BankAccountSchema,
};

export class BankAccountsModule extends EndpointModule {
  /** POST /bank-account/add: registers a customer's bank account. Not idempotent: look it up first. */
  async add(request: AddBankAccountRequest): Promise<MaybeCreatedId> {
    const body = validateRequest(AddBankAccountRequestSchema, request, { method: 'POST', path: '/bank-account/add' });
    return this.http.request({ method: 'POST', path: '/bank-account/add', body: jsonBody(body) }, MaybeCreatedIdSchema);
  }

  /** GET /bank-account/detail by the account's `id` (assumed parameter name, like every detail). */
  async detail(lookup: { id: string }): Promise<BankAccount> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/bank-account/detail' });
    return this.getData('/bank-account/detail', [['id', id]], BankAccountSchema);
  }

  /** GET /bank-account/list: one page. */
  async list(params: Pagination & BankAccountFilters = {}): Promise<Page<BankAccount>> {
    return this.listPage(BANK_ACCOUNT_LIST, params);
  }

  iterate(params: Pagination & BankAccountFilters = {}): AsyncGenerator<BankAccount, void, undefined> {
    return this.iterateList(BANK_ACCOUNT_LIST, params);
  }
}
