/**
 * Identifiers and generated banking details. Record ids are UUIDs as the interface's samples show;
 * account numbers, addresses and transaction ids only need to look right and be unique.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2';
import { createBase58check } from '@scure/base';
import type { Network } from './currencies';

export function newId(): string {
  return randomUUID();
}

function digits(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += String(randomInt(10));
  return text;
}

export function newAccountNumber(): string {
  return digits(9);
}

export function newBsbNumber(): string {
  return `${digits(3)}-${digits(3)}`;
}

const tronBase58check = createBase58check(sha256);

/** A fresh receiving address in the network's own format (0x hex for ETH, base58check `T...` for TRX). */
export function newChainAddress(network: Network): string {
  const accountId = randomBytes(20);
  if (network === 'ETH') return `0x${accountId.toString('hex')}`;
  return tronBase58check.encode(Uint8Array.of(0x41, ...accountId));
}

export function newTxid(): string {
  return randomBytes(32).toString('hex');
}

export function newBankReference(): string {
  return `SBX${digits(12)}`;
}
