/**
 * The in-memory state of one sandbox: partners and every record, each table keyed by id. Look-ups
 * take the partner and answer undefined for another partner's record exactly as for a missing one,
 * so no route can leak a record across partners by forgetting a check.
 */
import type {
  AutorampFlowRecord,
  BankAccountRecord,
  CryptoAddressRecord,
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  LegacyWhitelistRecord,
  PartnerRecord,
  PaymentRecord,
  TradeRecord,
  VirtualAccountRecord,
} from './records';

export class Table<T extends { id: string; partnerId: string; createTime: number }> {
  private readonly rows = new Map<string, T>();

  insert(row: T): T {
    this.rows.set(row.id, row);
    return row;
  }

  /** The record with this id if it belongs to the partner; otherwise undefined, whoever owns it. */
  find(partnerId: string, id: string): T | undefined {
    const row = this.rows.get(id);
    return row !== undefined && row.partnerId === partnerId ? row : undefined;
  }

  /** The partner's records in creation order, oldest first, so pages stay stable while records are added. */
  list(partnerId: string, keep: (row: T) => boolean = () => true): T[] {
    return [...this.rows.values()].filter((row) => row.partnerId === partnerId && keep(row));
  }
}

export class SandboxStore {
  readonly partners = new Map<string, PartnerRecord>();
  readonly customers = new Table<CustomerRecord>();
  readonly bankAccounts = new Table<BankAccountRecord>();
  readonly cryptoAddresses = new Table<CryptoAddressRecord>();
  readonly virtualAccounts = new Table<VirtualAccountRecord>();
  readonly depositAddresses = new Table<DepositAddressRecord>();
  readonly deposits = new Table<DepositRecord>();
  readonly flows = new Table<AutorampFlowRecord>();
  readonly trades = new Table<TradeRecord>();
  readonly payments = new Table<PaymentRecord>();
  readonly legacyWhitelist = new Table<LegacyWhitelistRecord>();

  partner(partnerId: string): PartnerRecord {
    const partner = this.partners.get(partnerId);
    if (partner === undefined) throw new Error(`unknown partner ${partnerId}`);
    return partner;
  }

  /** Whitelist entry ids are integers (interface: "AUD whitelist entry"); one counter for the sandbox. */
  private lastWhitelistEntryId = 0;
  nextWhitelistEntryId(): number {
    return ++this.lastWhitelistEntryId;
  }
}
