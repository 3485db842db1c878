/** zod schemas and inferred types of every resource, envelope and event of the ramp service. */
export * from './common';
export * from './customer';
export * from './bank-account';
export * from './crypto-address';
export * from './virtual-account';
export * from './deposit-address';
export * from './deposit';
export * from './trade';
export * from './payment';
export * from './autoramp-flow';
export * from './account';
export * from './events';
export * from './legacy';
export * from './setup';
export * from './quotes';
export * from './legacy-deposit';
