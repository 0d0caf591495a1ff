// Credential status with W3C Bitstring Status List v1.0 (chosen over StatusList2021, its
// predecessor, which the W3C replaced): one list per purpose ('revocation', 'suspension'),
// GZIP-compressed bitstring in multibase base64url ('u'), entries of type BitstringStatusListEntry.
// A StatusList is plain JSON data (bitsets as base64url) so the service can keep it in its store.
import { randomInt } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Clock } from '../clock.js';
import { b64uDecode, b64uEncode } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL, STATUS_LIST_V1_URL } from './contexts.js';
import { signCredential, xsdDateTime } from './issue.js';
import type { CredentialFormat, CredentialStatusEntry, IssuedCredential, IssuerKey, StatusPurpose, W3cCredential } from './types.js';

/** Bitstring Status List §6.1: at least 16 KB (131,072 entries) for herd privacy. */
export const MIN_STATUS_LIST_SIZE = 131_072;
/** Refuse lists that decompress beyond this (a gzip bomb guard): 16 Mbit. */
const MAX_DECODED_BYTES = 2 * 1024 * 1024;

export interface StatusList {
  /** URL where the status list credential is published (its `id`). */
  id: string;
  issuer: string;
  purpose: StatusPurpose;
  /** Number of entries (bits). */
  size: number;
  allocatedCount: number;
  /** base64url bitset of allocated indexes. */
  allocated: string;
  /** base64url bitset of status bits (1 = revoked / suspended). */
  bits: string;
}

const emptyBits = (size: number): string => b64uEncode(new Uint8Array(size / 8));

// §3.1 "the first index … is located at the left-most bit": index i is bit 7-(i%8) of byte i/8.
function getBit(bytes: Uint8Array, index: number): boolean {
  return (bytes[index >> 3] & (0x80 >> (index & 7))) !== 0;
}
function setBit(bytes: Uint8Array, index: number, value: boolean): void {
  if (value) bytes[index >> 3] |= 0x80 >> (index & 7);
  else bytes[index >> 3] &= ~(0x80 >> (index & 7)) & 0xff;
}

function checkIndex(list: StatusList, index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= list.size) {
    throw new IdsyncError('invalid_argument', `status index ${index} is outside 0..${list.size - 1}`);
  }
}

export function createStatusList(o: { id: string; issuer: string; purpose: StatusPurpose; size?: number }): StatusList {
  const size = o.size ?? MIN_STATUS_LIST_SIZE;
  if (!Number.isInteger(size) || size < MIN_STATUS_LIST_SIZE || size % 8 !== 0) {
    throw new IdsyncError('invalid_argument', `a status list has at least ${MIN_STATUS_LIST_SIZE} entries, a multiple of 8`);
  }
  if (o.purpose !== 'revocation' && o.purpose !== 'suspension') throw new IdsyncError('invalid_argument', `unknown status purpose ${String(o.purpose)}`);
  return { id: o.id, issuer: o.issuer, purpose: o.purpose, size, allocatedCount: 0, allocated: emptyBits(size), bits: emptyBits(size) };
}

/**
 * Reserves an unused index, chosen at random (§6.1 privacy: indexes must not reveal issuance
 * order). `random(max)` is injectable for deterministic tests. Throws 'status_list_full'.
 */
export function allocateIndex(list: StatusList, random: (max: number) => number = randomInt): { list: StatusList; index: number } {
  if (list.allocatedCount >= list.size) throw new IdsyncError('status_list_full', `status list ${list.id} has no free index`);
  // Every issuance allocates: the 16 KiB bitset is read and changed in the four base64url
  // characters that hold the index's byte, not decoded and encoded whole (~75 KB of copies).
  const { allocated } = list;
  let index = random(list.size) % list.size;
  while (getBit(groupOf(allocated, index).bytes, bitInGroup(index))) index = (index + 1) % list.size;
  const { at, bytes } = groupOf(allocated, index);
  setBit(bytes, bitInGroup(index), true);
  const next = allocated.slice(0, at) + bytes.toString('base64url') + allocated.slice(at + 4);
  return { list: { ...list, allocatedCount: list.allocatedCount + 1, allocated: next }, index };
}

/** The four base64url characters of `s` that hold bit `index`: where they start, and the (up to) three bytes they encode. */
function groupOf(s: string, index: number): { at: number; bytes: Buffer } {
  const at = 4 * Math.floor((index >> 3) / 3);
  return { at, bytes: Buffer.from(s.slice(at, at + 4), 'base64url') };
}

/** Bit `index`'s place within its group's bytes. */
const bitInGroup = (index: number): number => ((index >> 3) % 3) * 8 + (index & 7);

/** The list with `indexes` marked allocated (those already allocated stay as they are). */
export function withAllocated(list: StatusList, indexes: Iterable<number>): StatusList {
  const allocated = b64uDecode(list.allocated);
  let added = 0;
  for (const index of indexes) {
    checkIndex(list, index);
    if (getBit(allocated, index)) continue;
    setBit(allocated, index, true);
    added++;
  }
  return added === 0 ? list : { ...list, allocatedCount: list.allocatedCount + added, allocated: b64uEncode(allocated) };
}

export function getStatus(list: StatusList, index: number): boolean {
  checkIndex(list, index);
  return getBit(b64uDecode(list.bits), index);
}

/** Sets (true: revoked/suspended) or clears (false: e.g. unsuspended) an entry's bit. */
export function setStatus(list: StatusList, index: number, value: boolean): StatusList {
  checkIndex(list, index);
  const bits = b64uDecode(list.bits);
  setBit(bits, index, value);
  return { ...list, bits: b64uEncode(bits) };
}

/** §2.1 encodedList: multibase base64url (no padding) of the GZIP-compressed bitstring. */
export function encodedList(list: StatusList): string {
  return 'u' + b64uEncode(new Uint8Array(gzipSync(b64uDecode(list.bits))));
}

/** Decodes an encodedList; throws 'status_list_invalid'. */
export function decodeEncodedList(encoded: string): Uint8Array {
  if (typeof encoded !== 'string' || !encoded.startsWith('u')) throw new IdsyncError('status_list_invalid', 'encodedList is not multibase base64url');
  try {
    return new Uint8Array(gunzipSync(b64uDecode(encoded.slice(1)), { maxOutputLength: MAX_DECODED_BYTES }));
  } catch (cause) {
    throw new IdsyncError('status_list_invalid', 'encodedList does not decompress', { cause });
  }
}

/** The credentialStatus entry for an allocated index (§2.1 BitstringStatusListEntry). */
export function statusListEntry(list: StatusList, index: number): CredentialStatusEntry {
  checkIndex(list, index);
  return {
    id: `${list.id}#${index}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: list.purpose,
    statusListIndex: String(index),
    statusListCredential: list.id,
  };
}

/** The unsigned status list credential (§2.2, written in VC DM v1.1 like our other credentials). */
export function statusListCredential(list: StatusList, o: { format: CredentialFormat; clock: Clock; validForMs?: number }): W3cCredential {
  const now = o.clock.now();
  return {
    '@context': [CREDENTIALS_V1_URL, STATUS_LIST_V1_URL, ...(o.format === 'ldp' ? [DATA_INTEGRITY_V2_URL] : [])],
    id: list.id,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: list.issuer,
    issuanceDate: xsdDateTime(now),
    ...(o.validForMs ? { expirationDate: xsdDateTime(now + o.validForMs) } : {}),
    credentialSubject: { id: `${list.id}#list`, type: 'BitstringStatusList', statusPurpose: list.purpose, encodedList: encodedList(list) },
  };
}

/** Issues (signs) the current state of a list; re-issue after every change. */
export async function issueStatusListCredential(
  list: StatusList,
  o: { format: CredentialFormat; issuer: IssuerKey; clock: Clock; validForMs?: number },
): Promise<IssuedCredential> {
  if (o.issuer.did !== list.issuer) throw new IdsyncError('invalid_argument', 'the status list is issued by its own issuer');
  return signCredential(statusListCredential(list, o), o.format, o.issuer, o.clock);
}

/**
 * §3.2 validation, after the caller verified the list credential's proof and issuer: purpose
 * matches, index in range, and reads the bit. Never throws.
 */
export function checkStatus(
  entry: unknown,
  listCredential: W3cCredential,
): { ok: true; purpose: StatusPurpose; set: boolean } | { ok: false; code: 'status_list_invalid'; detail: string } {
  const e = entry as Partial<CredentialStatusEntry> | null;
  if (!e || typeof e !== 'object' || e.type !== 'BitstringStatusListEntry') {
    return { ok: false, code: 'status_list_invalid', detail: 'credentialStatus is not a BitstringStatusListEntry' };
  }
  const index = Number(e.statusListIndex);
  if (!/^\d+$/.test(String(e.statusListIndex)) || !Number.isSafeInteger(index)) {
    return { ok: false, code: 'status_list_invalid', detail: 'statusListIndex is not a non-negative integer' };
  }
  if (e.statusPurpose !== 'revocation' && e.statusPurpose !== 'suspension') {
    return { ok: false, code: 'status_list_invalid', detail: `unsupported statusPurpose ${String(e.statusPurpose)}` };
  }
  const subject = listCredential.credentialSubject as { type?: unknown; statusPurpose?: unknown; encodedList?: unknown };
  if (!listCredential.type?.includes('BitstringStatusListCredential') || subject?.type !== 'BitstringStatusList') {
    return { ok: false, code: 'status_list_invalid', detail: 'not a BitstringStatusListCredential' };
  }
  if (listCredential.id !== undefined && listCredential.id !== e.statusListCredential) {
    return { ok: false, code: 'status_list_invalid', detail: 'the status list credential has another id' };
  }
  const purposes = Array.isArray(subject.statusPurpose) ? subject.statusPurpose : [subject.statusPurpose];
  if (!purposes.includes(e.statusPurpose)) return { ok: false, code: 'status_list_invalid', detail: 'statusPurpose differs from the list' };
  let bits: Uint8Array;
  try {
    bits = decodeEncodedList(subject.encodedList as string);
  } catch (err) {
    return { ok: false, code: 'status_list_invalid', detail: (err as Error).message };
  }
  if (bits.length * 8 < MIN_STATUS_LIST_SIZE) return { ok: false, code: 'status_list_invalid', detail: 'the list is shorter than 131072 entries' };
  if (index >= bits.length * 8) return { ok: false, code: 'status_list_invalid', detail: 'statusListIndex is beyond the list' };
  return { ok: true, purpose: e.statusPurpose, set: getBit(bits, index) };
}

// ---- the vendor's statusChangeTerms --------------------------------------------------------

export type StatusChangeStatus = 'SUSPENDED' | 'REVOKED';
export type StatusUpdateTrigger = 'WORKFLOW_CREATION' | 'WORKFLOW_COMPLETION';
export interface StatusChangeTerms {
  status: StatusChangeStatus;
  statusUpdateTrigger: StatusUpdateTrigger;
}

/** Parses a client's statusChangeTerms (case-insensitive); throws 'invalid_status_change_terms'. */
export function parseStatusChangeTerms(input: unknown): StatusChangeTerms {
  const o = input as { status?: unknown; statusUpdateTrigger?: unknown } | null;
  const status = typeof o?.status === 'string' ? o.status.toUpperCase() : undefined;
  const trigger = typeof o?.statusUpdateTrigger === 'string' ? o.statusUpdateTrigger.toUpperCase() : undefined;
  if ((status !== 'SUSPENDED' && status !== 'REVOKED') || (trigger !== 'WORKFLOW_CREATION' && trigger !== 'WORKFLOW_COMPLETION')) {
    throw new IdsyncError(
      'invalid_status_change_terms',
      'statusChangeTerms needs status SUSPENDED|REVOKED and statusUpdateTrigger WORKFLOW_CREATION|WORKFLOW_COMPLETION',
    );
  }
  return { status, statusUpdateTrigger: trigger };
}

/** The list purpose a term's status needs. */
export function statusPurposeFor(status: StatusChangeStatus): StatusPurpose {
  return status === 'REVOKED' ? 'revocation' : 'suspension';
}

/**
 * When `trigger` happens, sets the credential's bit if the terms ask for it. `list` must be the
 * list of the terms' purpose (the one the credential's entry points at); `changed` tells the
 * caller to re-issue the list credential and to fire CREDENTIAL_REVOKED / _SUSPENDED.
 */
export function applyStatusChange(o: {
  terms: StatusChangeTerms;
  trigger: StatusUpdateTrigger;
  list: StatusList;
  index: number;
}): { list: StatusList; changed: boolean } {
  if (o.terms.statusUpdateTrigger !== o.trigger) return { list: o.list, changed: false };
  if (o.list.purpose !== statusPurposeFor(o.terms.status)) {
    throw new IdsyncError('invalid_argument', `terms ${o.terms.status} need a ${statusPurposeFor(o.terms.status)} list`);
  }
  if (getStatus(o.list, o.index)) return { list: o.list, changed: false };
  return { list: setStatus(o.list, o.index, true), changed: true };
}
