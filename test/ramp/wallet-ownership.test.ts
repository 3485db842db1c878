/**
 * Wallet ownership proof for POST /create-va. Known-answer checks come from outside this project:
 * the web3.js documentation's `accounts.sign('Some data', key)` example for ETH, and the TRON
 * private-network witness key with its published address for TRX.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils';
import { describe, expect, it } from 'vitest';
import {
  addressFromPrivateKey,
  personalMessageDigest,
  signWalletOwnership,
  verifyWalletOwnership,
  walletOwnershipMessage,
} from '../../ramp/wallet-ownership';

const ETH_KEY = hexToBytes('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const ETH_ADDRESS_CHECKSUMMED = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const WEB3_SOME_DATA_SIGNATURE =
  '0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c';

const TRX_KEY = hexToBytes('da146374a75310b9666e834ee4ad0866d6f4035967bfc76217c5a495fff9f0d0');
const TRX_ADDRESS = 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY';

const OTHER_KEY = hexToBytes('0000000000000000000000000000000000000000000000000000000000000001');

describe('walletOwnershipMessage', () => {
  it('is the interface text with the address, the user and the date DD/MM/YYYY', () => {
    expect(walletOwnershipMessage('0xabc', 'user-7', new Date('2026-03-05T12:00:00Z'))).toBe(
      'I am verifying ownership of the wallet address 0xabc as user user-7. This message was signed on 05/03/2026 to confirm my control over this wallet.',
    );
  });

  it('takes the date in UTC, whatever the local time zone says', () => {
    // 23:30 on 5 March in New York is 04:30 on 6 March in UTC.
    expect(walletOwnershipMessage('a', 'u', new Date('2026-03-05T23:30:00-05:00'))).toContain('signed on 06/03/2026 ');
    expect(walletOwnershipMessage('a', 'u', new Date('2026-12-31T23:59:59Z'))).toContain('signed on 31/12/2026 ');
  });
});

describe('addressFromPrivateKey', () => {
  it('derives the known ETH and TRX addresses', () => {
    expect(addressFromPrivateKey('ETH', ETH_KEY)).toBe(ETH_ADDRESS_CHECKSUMMED.toLowerCase());
    expect(addressFromPrivateKey('TRX', TRX_KEY)).toBe(TRX_ADDRESS);
  });
});

describe('ETH personal_sign', () => {
  it('reproduces the web3.js documentation signature', () => {
    expect(signWalletOwnership({ network: 'ETH', privateKey: ETH_KEY, message: 'Some data' })).toBe(
      WEB3_SOME_DATA_SIGNATURE,
    );
  });

  it('accepts the documented signature, comparing the address case-insensitively', () => {
    expect(
      verifyWalletOwnership({
        network: 'ETH',
        address: ETH_ADDRESS_CHECKSUMMED,
        message: 'Some data',
        signature: WEB3_SOME_DATA_SIGNATURE,
      }),
    ).toBe(true);
  });

  it('accepts an ownership message signed by the key and rejects every change to it', () => {
    const address = addressFromPrivateKey('ETH', ETH_KEY);
    const message = walletOwnershipMessage(address, 'user-1', new Date('2026-04-01T00:00:00Z'));
    const signature = signWalletOwnership({ network: 'ETH', privateKey: ETH_KEY, message });
    expect(verifyWalletOwnership({ network: 'ETH', address, message, signature })).toBe(true);
    // Another user, another day, another signer, another network's prefix.
    expect(
      verifyWalletOwnership({ network: 'ETH', address, message: message.replace('user-1', 'user-2'), signature }),
    ).toBe(false);
    expect(
      verifyWalletOwnership({
        network: 'ETH',
        address,
        message: message.replace('01/04/2026', '02/04/2026'),
        signature,
      }),
    ).toBe(false);
    expect(
      verifyWalletOwnership({ network: 'ETH', address: addressFromPrivateKey('ETH', OTHER_KEY), message, signature }),
    ).toBe(false);
    const tronStyle = signWalletOwnership({ network: 'TRX', privateKey: ETH_KEY, message });
    expect(verifyWalletOwnership({ network: 'ETH', address, message, signature: tronStyle })).toBe(false);
  });

  it('accepts v as 0/1 as well as 27/28, and rejects malformed signatures without throwing', () => {
    const withRecoveryBit = WEB3_SOME_DATA_SIGNATURE.slice(0, -2) + '01';
    expect(
      verifyWalletOwnership({
        network: 'ETH',
        address: ETH_ADDRESS_CHECKSUMMED,
        message: 'Some data',
        signature: withRecoveryBit,
      }),
    ).toBe(true);
    const flippedV = WEB3_SOME_DATA_SIGNATURE.slice(0, -2) + '1b';
    expect(
      verifyWalletOwnership({
        network: 'ETH',
        address: ETH_ADDRESS_CHECKSUMMED,
        message: 'Some data',
        signature: flippedV,
      }),
    ).toBe(false);
    for (const signature of [
      '',
      '0x',
      '0x1234',
      `${WEB3_SOME_DATA_SIGNATURE}00`,
      WEB3_SOME_DATA_SIGNATURE.slice(0, -2) + '05',
      `0x${'zz'.repeat(65)}`,
      `0x${'00'.repeat(65)}`,
    ]) {
      expect(
        verifyWalletOwnership({ network: 'ETH', address: ETH_ADDRESS_CHECKSUMMED, message: 'Some data', signature }),
      ).toBe(false);
    }
  });
});

describe('TRX signMessageV2', () => {
  it('accepts an ownership message signed by the key and rejects other signers, messages and prefixes', () => {
    const message = walletOwnershipMessage(TRX_ADDRESS, 'user-9', new Date('2026-05-20T08:00:00Z'));
    const signature = signWalletOwnership({ network: 'TRX', privateKey: TRX_KEY, message });
    expect(signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
    expect(verifyWalletOwnership({ network: 'TRX', address: TRX_ADDRESS, message, signature })).toBe(true);
    expect(
      verifyWalletOwnership({ network: 'TRX', address: addressFromPrivateKey('TRX', OTHER_KEY), message, signature }),
    ).toBe(false);
    expect(verifyWalletOwnership({ network: 'TRX', address: TRX_ADDRESS, message: `${message} `, signature })).toBe(
      false,
    );
    const ethereumStyle = signWalletOwnership({ network: 'ETH', privateKey: TRX_KEY, message });
    expect(verifyWalletOwnership({ network: 'TRX', address: TRX_ADDRESS, message, signature: ethereumStyle })).toBe(
      false,
    );
  });

  it('compares TRON base58 addresses exactly (base58 is case-sensitive)', () => {
    const message = 'hello';
    const signature = signWalletOwnership({ network: 'TRX', privateKey: TRX_KEY, message });
    expect(verifyWalletOwnership({ network: 'TRX', address: TRX_ADDRESS.toLowerCase(), message, signature })).toBe(
      false,
    );
  });

  it('counts the message length in UTF-8 bytes, as wallets do', () => {
    const message = 'Zoë signs ✓'; // 11 characters, 14 bytes
    expect(bytesToHex(personalMessageDigest('TRX', message))).toBe(
      bytesToHex(keccak_256(utf8ToBytes(`\x19TRON Signed Message:\n14${message}`))),
    );
    expect(bytesToHex(personalMessageDigest('ETH', message))).toBe(
      bytesToHex(keccak_256(utf8ToBytes(`\x19Ethereum Signed Message:\n14${message}`))),
    );
  });
});
