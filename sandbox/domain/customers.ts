/**
 * Customer lifecycle (DESIGN): CREATED → PENDING → APPROVED | REJECTED, and DELETED from any state.
 * PENDING means the customer has opened the hosted KYC page and submitted; the sandbox moves a
 * customer there when its kycLink is opened (or the autopilot does). Approval may also come straight
 * from CREATED, as a provider may decide on documents submitted elsewhere.
 */
import { failed } from '../http/errors';
import { newId } from '../identifiers';
import type { CustomerRecord } from '../state/records';
import { requireStatus, type DomainContext } from './context';

export interface NewCustomer {
  realName?: string | undefined;
  email?: string | undefined;
  externalId?: string | undefined;
}

export function createCustomer(ctx: DomainContext, partnerId: string, input: NewCustomer): CustomerRecord {
  // The interface has no idempotency key; a partner's externalId is its own user id, so the sandbox
  // refuses a second customer with the same one. A client that retried a create blindly finds out here.
  if (
    input.externalId !== undefined &&
    ctx.store.customers.list(partnerId, (c) => c.externalId === input.externalId).length > 0
  ) {
    throw failed(`a customer with externalId ${input.externalId} already exists`);
  }
  const now = ctx.now();
  const customer = ctx.store.customers.insert({
    id: newId(),
    partnerId,
    realName: input.realName ?? null,
    email: input.email ?? null,
    externalId: input.externalId ?? null,
    status: 'CREATED',
    createTime: now,
    updateTime: now,
  });
  ctx.changed({ kind: 'customer', partnerId, id: customer.id });
  return customer;
}

function find(ctx: DomainContext, partnerId: string, id: string): CustomerRecord {
  const customer = ctx.store.customers.find(partnerId, id);
  if (customer === undefined) throw failed('customer not found');
  return customer;
}

function move(ctx: DomainContext, customer: CustomerRecord, status: CustomerRecord['status']): void {
  customer.status = status;
  customer.updateTime = ctx.now();
  ctx.changed({ kind: 'customer', partnerId: customer.partnerId, id: customer.id });
}

/** The customer submitted the hosted KYC form. No event: the interface lists none for it. */
export function submitKyc(ctx: DomainContext, partnerId: string, id: string): CustomerRecord {
  const customer = find(ctx, partnerId, id);
  requireStatus('customer', customer.status, ['CREATED'], 'submit KYC for');
  move(ctx, customer, 'PENDING');
  return customer;
}

export function approveCustomer(ctx: DomainContext, partnerId: string, id: string): CustomerRecord {
  const customer = find(ctx, partnerId, id);
  requireStatus('customer', customer.status, ['CREATED', 'PENDING'], 'approve');
  move(ctx, customer, 'APPROVED');
  ctx.emit(partnerId, customer.id, 'CUSTOMER_APPROVED', ctx.views.customer(customer));
  return customer;
}

export function rejectCustomer(ctx: DomainContext, partnerId: string, id: string): CustomerRecord {
  const customer = find(ctx, partnerId, id);
  requireStatus('customer', customer.status, ['CREATED', 'PENDING'], 'reject');
  move(ctx, customer, 'REJECTED');
  ctx.emit(partnerId, customer.id, 'CUSTOMER_REJECTED', ctx.views.customer(customer));
  return customer;
}

/** Deletion (a dashboard action at the real service). The record stays readable with status DELETED. */
export function deleteCustomer(ctx: DomainContext, partnerId: string, id: string): CustomerRecord {
  const customer = find(ctx, partnerId, id);
  requireStatus('customer', customer.status, ['CREATED', 'PENDING', 'APPROVED', 'REJECTED'], 'delete');
  move(ctx, customer, 'DELETED');
  ctx.emit(partnerId, customer.id, 'CUSTOMER_DELETED', ctx.views.customer(customer));
  return customer;
}
