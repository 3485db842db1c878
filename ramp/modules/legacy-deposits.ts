/** Deposits as the older generation numbers them (GET /legacy-deposit/list, /legacy-deposit/detail). */
import { z } from 'zod';
import {
  LegacyDepositSchema,
  pageOf,
  PaginationSchema,
  type LegacyDeposit,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule } from './endpoint';

export class LegacyDepositsModule extends EndpointModule {
  /** GET /legacy-deposit/list: one page. Its ids are integers, so the new-generation `iterate` (string ids) does not apply. */
  async list(params: Pagination = {}): Promise<Page<LegacyDeposit>> {
    const checked = validateRequest(PaginationSchema, params, { method: 'GET', path: '/legacy-deposit/list' });
    return this.getData(
      '/legacy-deposit/list',
      [
        ['pageNum', checked.pageNum],
        ['pageSize', checked.pageSize],
      ],
      pageOf(LegacyDepositSchema),
    );
  }

  /** GET /legacy-deposit/detail by its integer id. */
  async detail(lookup: { id: number }): Promise<LegacyDeposit> {
    const id = validateRequest(z.number().int().positive(), lookup.id, {
      method: 'GET',
      path: '/legacy-deposit/detail',
    });
    return this.getData('/legacy-deposit/detail', [['id', id]], LegacyDepositSchema);
  }
}
