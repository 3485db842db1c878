/**
 * A wallet for tests, written from the networks' conventions rather than with ramp/wallet-ownership,
 * so the sandbox's ownership check is exercised by an independent signer: EIP-191 personal_sign for
 * ETH and TIP-191 (TronWeb signMessageV2) for TRX, r || s || v with v = 27 or 28.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { createBase58check } from '@scure/base';

export type Network = 'ETH' | 'TRX';

export class TestWallet {
  readonly address: string;

  constructor(
    readonly network: Network,
    private readonly privateKey: Uint8Array = secp256k1.utils.randomPrivateKey(),
  ) {
    const accountId = keccak_256(secp256k1.getPublicKey(this.privateKey, false).slice(1)).slice(-20);
    this.address =
      network === 'ETH'
        ? `0x${bytesToHex(accountId)}`
        : createBase58check(sha256).encode(new Uint8Array([0x41, ...accountId]));
  }

  signPersonalMessage(message: string): string {
    const prefix = this.network === 'ETH' ? '\x19Ethereum Signed Message:\n' : '\x19TRON Signed Message:\n';
    const bytes = utf8ToBytes(message);
    const digest = keccak_256(new Uint8Array([...utf8ToBytes(`${prefix}${bytes.length}`), ...bytes]));
    const signature = secp256k1.sign(digest, this.privateKey, { prehash: false });
    return `0x${bytesToHex(signature.toBytes('compact'))}${(27 + signature.recovery).toString(16)}`;
  }
}

/** The interface's ownership message, dated today (UTC). */
export function ownershipMessage(address: string, userId: string, date = new Date()): string {
  const dd = String(date.getUTCDate()).padStart(2, '0');
  const mm = String(date.getUTCMonth() + 1).padStart(2, '0');
  return `I am verifying ownership of the wallet address ${address} as user ${userId}. This message was signed on ${dd}/${mm}/${date.getUTCFullYear()} to confirm my control over this wallet.`;
}
