/** Deposits (interface: "Deposits", and POST /deposit/submitAttachmentFile). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import { encodeMultipart, type MultipartFile, type MultipartPart } from '../multipart';
import {
  DepositListItemSchema,
  DepositSchema,
  DepositStatusSchema,
  MaybeCreatedIdSchema,
  MockDepositRequestSchema,
  UnknownData,
  type Deposit,
  type DepositListItem,
  type DepositStatus,
  type MaybeCreatedId,
  type MockDepositRequest,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

const DepositFiltersSchema = z.object({
  customerId: z.string().min(1).optional(),
  currency: z.string().min(1).optional(),
  status: DepositStatusSchema.optional(),
});
export type DepositFilters = z.infer<typeof DepositFiltersSchema>;

const DEPOSIT_LIST: ListEndpoint<DepositFilters, DepositListItem> = {
  path: '/deposit/list',
  filters: DepositFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['currency', 'currency'],
    ['status', 'status'],
  ],
  item: DepositListItemSchema,
};

const DepositLookupSchema = z.object({ id: RecordId, status: DepositStatusSchema.optional() });

export interface AttachmentUpload {
  /** The deposit the file belongs to (typically one in ACTION_REQUIRED). */
  depositId: string;
  file: MultipartFile;
  /** Further form fields, sent before the file in the order given (the endpoint's fields are not shown). */
  fields?: Record<string, string>;
}

export class DepositsModule extends EndpointModule {
  /** GET /deposit/detail; `status` narrows the look-up to a deposit in that status. */
  async detail(lookup: { id: string; status?: DepositStatus }): Promise<Deposit> {
    const checked = validateRequest(DepositLookupSchema, lookup, { method: 'GET', path: '/deposit/detail' });
    return this.getData(
      '/deposit/detail',
      [
        ['id', checked.id],
        ['status', checked.status],
      ],
      DepositSchema,
    );
  }

  /** POST /deposit/mock: the (real or local) sandbox's simulated deposit; a production service refuses it. */
  async mock(request: MockDepositRequest): Promise<MaybeCreatedId> {
    const body = validateRequest(MockDepositRequestSchema, request, { method: 'POST', path: '/deposit/mock' });
    return this.http.request({ method: 'POST', path: '/deposit/mock', body: jsonBody(body) }, MaybeCreatedIdSchema);
  }

  /** GET /deposit/list: one page. */
  async list(params: Pagination & DepositFilters = {}): Promise<Page<DepositListItem>> {
    return this.listPage(DEPOSIT_LIST, params);
  }

  iterate(params: Pagination & DepositFilters = {}): AsyncGenerator<DepositListItem, void, undefined> {
    return this.iterateList(DEPOSIT_LIST, params);
  }

  /**
   * POST /deposit/submitAttachmentFile as multipart/form-data, signed with an empty body-hash line.
   * Form field names are assumptions (assumptions.ts `attachmentFields`). Response not shown.
   */
  async submitAttachmentFile(upload: AttachmentUpload): Promise<unknown> {
    const path = '/deposit/submitAttachmentFile';
    const depositId = validateRequest(RecordId, upload.depositId, { method: 'POST', path });
    const names = this.http.assumptions.attachmentFields;
    const parts: MultipartPart[] = [
      { name: names.depositId, value: depositId },
      ...Object.entries(upload.fields ?? {}).map(([name, value]) => ({ name, value })),
      { name: names.file, file: upload.file },
    ];
    const multipart = encodeMultipart(parts);
    return this.http.request(
      { method: 'POST', path, body: { bytes: multipart.bytes, contentType: multipart.contentType, hashed: false } },
      UnknownData,
    );
  }
}
