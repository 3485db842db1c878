/** Customer (interface: "Customer", "Customers"). */
import { z } from 'zod';
import { Identifier, optionalNullable } from './common';

/**
 * Only `id` and `status` are required: `realName` and `email` are "fields seen", and customers
 * created with an external id alone may lack them. `externalId` and `kycLink` are optional by the
 * interface.
 */
export const CustomerSchema = z.looseObject({
  id: Identifier,
  status: z.string(),
  realName: optionalNullable(z.string()),
  email: optionalNullable(z.string()),
  externalId: optionalNullable(z.string()),
  kycLink: optionalNullable(z.string()),
});
export type Customer = z.infer<typeof CustomerSchema>;

/** Customer list items include `externalId` (release 2026-03-27); they are customers. */
export const CustomerListItemSchema = CustomerSchema;
export type CustomerListItem = Customer;

/**
 * POST /customer/create. Only `externalId` is documented; the other fields are not shown, so the
 * request passes any extra fields (name, email, ...) through as given.
 */
export const CreateCustomerRequestSchema = z.looseObject({
  externalId: z.string().min(1).optional(),
  realName: z.string().optional(),
  email: z.string().optional(),
});
export type CreateCustomerRequest = z.infer<typeof CreateCustomerRequestSchema>;

/**
 * The response shape of POST /customer/create is not shown. We expect the created customer, but only
 * check `id` when it is there; callers that get no id look the customer up by `externalId`.
 */
export const CreatedCustomerSchema = z.looseObject({ id: Identifier.optional() });
export type CreatedCustomer = z.infer<typeof CreatedCustomerSchema>;
