/**
 * The hosted KYC page a customer's `kycLink` points to. At the real service it belongs to a KYC
 * vendor and is opened by the end user in a browser, so it is not signed. Opening it stands for
 * the user submitting the form: a CREATED customer becomes PENDING.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainContext } from '../domain/context';
import { submitKyc } from '../domain/customers';

export const KYC_PAGE_PATH = '/kyc/:customerId';

export function kycPage(ctx: DomainContext) {
  return {
    path: KYC_PAGE_PATH,
    handler: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const { customerId } = request.params as { customerId: string };
      const owner = [...ctx.store.partners.keys()].find(
        (partnerId) => ctx.store.customers.find(partnerId, customerId) !== undefined,
      );
      const customer = owner === undefined ? undefined : ctx.store.customers.find(owner, customerId);
      if (owner === undefined || customer === undefined) {
        await reply.code(404).type('text/plain; charset=utf-8').send('Unknown KYC link.');
        return;
      }
      if (customer.status === 'CREATED') submitKyc(ctx, owner, customerId);
      await reply
        .type('text/plain; charset=utf-8')
        .send(`Sandbox KYC: documents received. Verification status: ${customer.status}.`);
    },
  };
}
