/** Bank accounts (interface: "Bank accounts"). */
import { z } from 'zod';
import { BANK_ACCOUNT_CURRENCIES, BankAccountSchema, type BankAccount, type Page, type Pagination } from '../schemas';
import { EndpointModule, type ListEndpoint } from './endpoint';

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
  /** GET /bank-account/list: one page. */
  async list(params: Pagination & BankAccountFilters = {}): Promise<Page<BankAccount>> {
    return this.listPage(BANK_ACCOUNT_LIST, params);
  }

  iterate(params: Pagination & BankAccountFilters = {}): AsyncGenerator<BankAccount, void, undefined> {
    return this.iterateList(BANK_ACCOUNT_LIST, params);
  }
}
