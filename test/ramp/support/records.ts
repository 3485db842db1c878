/** Sample records shaped as the interface describes them, plus a field the service might add later. */
export const customer = {
  id: 'c0a8f1e2-0000-4000-8000-000000000001',
  realName: 'Zoë Ångström',
  email: 'zoe@example.com',
  externalId: 'ext-1',
  kycLink: 'https://kyc.example/abc',
  status: 'CONFIRMED',
  addedLater: { nested: true },
};

export const bankAccount = {
  id: 'ba-1',
  customerId: customer.id,
  currency: 'AUD',
  bankName: 'Bank of Examples',
  accountNo: '12345678',
  swift: 'EXAMAU2S',
  createTime: '2026-03-01T10:00:00Z',
  updateTime: '2026-03-01T10:00:00Z',
};

export const cryptoAddress = {
  id: 'ca-1',
  customerId: customer.id,
  currency: 'USDT',
  address: 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY',
  label: 'main',
  network: 'TRX',
  createTime: '2026-03-01T10:00:00Z',
  updateTime: '2026-03-02T10:00:00Z',
};

export const virtualAccount = {
  id: 'va-1',
  customerId: customer.id,
  customerName: 'Zoë Ångström',
  currency: 'AUD',
  accountNumber: '000111222',
  bicSwift: 'EXAMAU2S',
  payId: 'zoe@payid.example',
  status: 'VERIFIED',
  bankName: 'Bank of Examples',
};

export const depositAddress = {
  id: 'da-1',
  customerId: customer.id,
  currency: 'USDT',
  network: 'ETH',
  address: '0x2c7536e3605d9c16a7a3d7b1898e529396a65c23',
  status: 'APPROVED',
};

export const deposit = {
  id: 'd0a8f1e2-0000-4000-8000-000000000009',
  customerId: customer.id,
  type: 'FIAT',
  currency: 'AUD',
  amount: '1500.00',
  senderBankAccount: null,
  senderCryptoAddress: null,
  receiverDepositAddress: null,
  receiverVirtualAccount: virtualAccount,
  txid: 'tx-77',
  voutIndexTxKey: 'tx-77:0',
  txFrom: 'ZOE A',
  txReference: 'INV-1',
  status: 'RECEIVED',
  timestamp: '2026-03-05T12:00:00Z',
};

export const depositListItem = {
  id: deposit.id,
  currency: 'AUD',
  amount: '1500.00',
  status: 'CONFIRMED',
  txid: 'tx-77',
  voutIndexTxKey: 'tx-77:0',
  timestamp: deposit.timestamp,
  customerName: 'Zoë Ångström',
  customerId: customer.id,
  txFrom: 'ZOE A',
  txReference: 'INV-1',
};

export const trade = {
  id: 'tr-1',
  fromAmount: '1500.00',
  fromCurrency: 'AUD',
  toAmount: '980.12',
  toCurrency: 'USDT',
  status: 'SETTLED',
  createTime: '2026-03-05T12:05:00Z',
  deposit: { id: deposit.id, currency: 'AUD', amount: '1500.00' },
};

export const payment = {
  id: 'p0a8f1e2-0000-4000-8000-000000000003',
  status: 'CONFIRMED',
  rate: '1.52',
  deductAmount: '1000.00',
  deductCurrency: 'USDT',
  receivedCurrency: 'AUD',
  receivedAmount: '1520.00',
  bankCharge: '0.00',
  reference: 'tr-1',
  createTime: '2026-03-06 09:15:00',
  bankAccount: {
    bankName: 'Bank of Examples',
    accountNo: '12345678',
    swift: 'EXAMAU2S',
    beneficiaryName: 'Zoë Ångström',
    beneficiaryAddress: '1 Example St',
    bankCountry: 'AU',
    bankAddress: '2 Bank St',
  },
};

export const autorampFlow = {
  id: 'af-1',
  type: 'ONRAMP',
  from: 'va-1',
  to: 'ca-1',
  status: 'ENABLED',
  createTime: '2026-03-05T12:00:00Z',
};

export const audWhitelistEntry = {
  bsbNumber: '062000',
  accountNumber: '12345678',
  accountName: 'Zoë',
  accountStatus: 'active',
  id: 7,
};

export function page<T>(list: T[], total = list.length, pageNum = 1, pageSize = 100) {
  return { list, total, pageNum, pageSize };
}
