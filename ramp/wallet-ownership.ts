/**
 * Wallet ownership proof for the older generation's POST /create-va (interface: "Crypto address
 * ownership proof").
 *
 * The message is fixed text around the address, the user identifier and today's date; the wallet
 * signs it with its network's standard personal-message signing:
 * - ETH: EIP-191 `personal_sign` — keccak256("\x19Ethereum Signed Message:\n" + byte length + message).
 * - TRX: TronWeb `signMessageV2` (TIP-191) — the same construction with "\x19TRON Signed Message:\n".
 * Both produce a 65-byte `r || s || v` signature, written as 0x-prefixed hex with v = 27 or 28.
 * Verification recovers the signer's public key and compares its address with the one claimed.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils';
import { createBase58check } from '@scure/base';

export type WalletNetwork = 'ETH' | 'TRX';

const SIGNED_MESSAGE_PREFIX: Record<WalletNetwork, string> = {
  ETH: '\x19Ethereum Signed Message:\n',
  TRX: '\x19TRON Signed Message:\n',
};

/** TRON addresses are base58check of 0x41 followed by the same 20 bytes an Ethereum address has. */
const TRON_ADDRESS_PREFIX = 0x41;
const tronBase58check = createBase58check(sha256);

/**
 * The exact message the wallet signs. The interface leaves the time zone of "today" open; we use
 * UTC (DESIGN: "The date in the wallet-ownership message is UTC"), so signer and verifier agree
 * wherever they run.
 */
export function walletOwnershipMessage(address: string, userId: string, date: Date): string {
  const day = String(date.getUTCDate()).padStart(2, '0');
  const month = String(date.getUTCMonth() + 1).padStart(2, '0');
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  return (
    `I am verifying ownership of the wallet address ${address} as user ${userId}` +
    `. This message was signed on ${day}/${month}/${year} to confirm my control over this wallet.`
  );
}

/** The digest a wallet of this network signs for a personal message: the length is in UTF-8 bytes. */
export function personalMessageDigest(network: WalletNetwork, message: string): Uint8Array {
  const messageBytes = utf8ToBytes(message);
  const prefix = utf8ToBytes(`${SIGNED_MESSAGE_PREFIX[network]}${messageBytes.length}`);
  return keccak_256(concatBytes(prefix, messageBytes));
}

/** The 20-byte account id both networks derive from an uncompressed public key. */
function accountIdFromPublicKey(uncompressedPublicKey: Uint8Array): Uint8Array {
  return keccak_256(uncompressedPublicKey.subarray(1)).subarray(-20);
}

function formatAddress(network: WalletNetwork, accountId: Uint8Array): string {
  if (network === 'ETH') return `0x${bytesToHex(accountId)}`;
  return tronBase58check.encode(concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), accountId));
}

/** The address a private key controls: lowercase 0x hex for ETH, base58check `T...` for TRX. */
export function addressFromPrivateKey(network: WalletNetwork, privateKey: Uint8Array): string {
  return formatAddress(network, accountIdFromPublicKey(secp256k1.getPublicKey(privateKey, false)));
}

/** Signs like a wallet does: 0x-prefixed hex of r (32 bytes) || s (32 bytes) || v (27 or 28). */
export function signWalletOwnership(input: {
  network: WalletNetwork;
  privateKey: Uint8Array;
  message: string;
}): string {
  const digest = personalMessageDigest(input.network, input.message);
  const signature = secp256k1.sign(digest, input.privateKey, { prehash: false });
  const rs = signature.toBytes('compact');
  return `0x${bytesToHex(rs)}${(27 + signature.recovery).toString(16)}`;
}

/** r, s and the recovery bit of a 65-byte hex signature; v may be 0/1 or 27/28. Undefined if malformed. */
function parseRecoverableSignature(signatureHex: string): { compact: Uint8Array; recovery: number } | undefined {
  const hex = signatureHex.startsWith('0x') || signatureHex.startsWith('0X') ? signatureHex.slice(2) : signatureHex;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return undefined;
  const bytes = hexToBytes(hex);
  const v = bytes[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return undefined;
  return { compact: bytes.subarray(0, 64), recovery };
}

function addressesEqual(network: WalletNetwork, claimed: string, recovered: string): boolean {
  // ETH addresses may carry an EIP-55 mixed-case checksum; the bytes are what count.
  // TRON base58 is case-sensitive, so it is compared exactly.
  return network === 'ETH' ? claimed.toLowerCase() === recovered.toLowerCase() : claimed === recovered;
}

/**
 * True when `signature` over `message` was made by the key controlling `address` on `network`.
 * Never throws: a malformed signature or address is simply not a proof.
 */
export function verifyWalletOwnership(input: {
  network: WalletNetwork;
  address: string;
  message: string;
  signature: string;
}): boolean {
  if (input.network !== 'ETH' && input.network !== 'TRX') return false;
  const parsed = parseRecoverableSignature(input.signature);
  if (parsed === undefined) return false;
  try {
    const signature = secp256k1.Signature.fromBytes(parsed.compact, 'compact').addRecoveryBit(parsed.recovery);
    const publicKey = signature.recoverPublicKey(personalMessageDigest(input.network, input.message)).toBytes(false);
    return addressesEqual(
      input.network,
      input.address,
      formatAddress(input.network, accountIdFromPublicKey(publicKey)),
    );
  } catch {
    // r or s out of range, or no point recovers: not a valid signature.
    return false;
  }
}
