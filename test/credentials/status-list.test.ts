import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueCredential } from '../../src/credentials/issue.js';
import {
  MIN_STATUS_LIST_SIZE,
  allocateIndex,
  applyStatusChange,
  checkStatus,
  createStatusList,
  encodedList,
  getStatus,
  issueStatusListCredential,
  parseStatusChangeTerms,
  setStatus,
  statusListEntry,
  type StatusList,
} from '../../src/credentials/status-list.js';
import type { CredentialFormat, JwtCredential, VerificationResult, W3cCredential } from '../../src/credentials/types.js';
import { MAX_STATUS_LISTS, verifyCredential } from '../../src/credentials/verify.js';
import { exampleDid, mapResolver } from './helpers.js';

const issuer = exampleDid('issuer', 1);
const holder = exampleDid('holder', 2);
const other = exampleDid('other', 3);
const resolve = mapResolver(issuer, holder, other);
const LIST_URL = 'https://issuer.example/status/1';
const SUSPENSION_URL = 'https://issuer.example/status/2';
const failures = (r: VerificationResult) => r.checks.filter((c) => !c.ok).map((c) => c.code);
const wire = (c: W3cCredential | JwtCredential): unknown => ('jwt' in c ? c.jwt : c);

describe('bitstring status list', () => {
  it('allocates distinct random indexes and sets bits left-most first', () => {
    let list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    expect(list.size).toBe(MIN_STATUS_LIST_SIZE);
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const r = allocateIndex(list);
      list = r.list;
      seen.add(r.index);
    }
    expect(seen.size).toBe(50);
    expect(list.allocatedCount).toBe(50);

    list = setStatus(setStatus(list, 0, true), 9, true);
    expect(getStatus(list, 0)).toBe(true);
    expect(getStatus(list, 1)).toBe(false);
    const bytes = gunzipSync(Buffer.from(encodedList(list).slice(1), 'base64url'));
    expect(bytes.length).toBe(16_384);
    expect([bytes[0], bytes[1]]).toEqual([0x80, 0x40]);
    expect(getStatus(setStatus(list, 9, false), 9)).toBe(false);
  });

  it('probes past taken indexes and reports a full list', () => {
    let list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    const fixed = () => 7;
    const a = allocateIndex(list, fixed);
    const b = allocateIndex(a.list, fixed);
    expect([a.index, b.index]).toEqual([7, 8]);
    list = { ...b.list, allocatedCount: b.list.size };
    expect(() => allocateIndex(list)).toThrow(expect.objectContaining({ code: 'status_list_full' }));
  });

  it('keeps the allocated bitset exactly as decoding, setting and encoding it whole would', () => {
    let list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    const size = list.size;
    const bits = new Uint8Array(size / 8);
    // The first and last bytes (the last base64url group holds one byte), both ends of groups, and probing past taken ones.
    const picks = [0, 7, 8, 23, 24, size - 1, size - 8, size - 9, size - 1, 3 * 8 * 1000 + 5, 3 * 8 * 1000 + 5, 12_345, 99_999];
    for (const pick of picks) {
      const r = allocateIndex(list, () => pick);
      list = r.list;
      bits[r.index >> 3]! |= 0x80 >> (r.index & 7);
      expect(list.allocated).toBe(Buffer.from(bits).toString('base64url'));
    }
    expect(list.allocatedCount).toBe(picks.length);
  });

  it('refuses lists smaller than 131072 entries and indexes out of range', () => {
    expect(() => createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation', size: 1024 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    const list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'suspension' });
    expect(() => setStatus(list, MIN_STATUS_LIST_SIZE, true)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('builds BitstringStatusListEntry entries', () => {
    const list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    expect(statusListEntry(list, 42)).toEqual({
      id: `${LIST_URL}#42`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '42',
      statusListCredential: LIST_URL,
    });
  });
});

describe.each(['ldp', 'jwt'] as const)('status checks (%s)', (format: CredentialFormat) => {
  async function setup() {
    const clock = new ManualClock();
    let revocation: StatusList = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    let suspension: StatusList = createStatusList({ id: SUSPENSION_URL, issuer: issuer.did, purpose: 'suspension' });
    const r = allocateIndex(revocation);
    const s = allocateIndex(suspension);
    revocation = r.list;
    suspension = s.list;
    const issued = await issueCredential({
      format,
      issuer: issuer.issuer,
      subjectDid: holder.did,
      claims: { firstName: 'Ada' },
      credentialStatus: [statusListEntry(revocation, r.index), statusListEntry(suspension, s.index)],
      clock,
    });
    const published = new Map<string, unknown>();
    const publish = async (list: StatusList, by = issuer.issuer) =>
      published.set(list.id, wire((await issueStatusListCredential(list, { format, issuer: by, clock })).credential));
    await publish(revocation);
    await publish(suspension);
    const verify = () => verifyCredential(wire(issued.credential), { resolve, clock, statusList: async (url) => published.get(url) });
    return { clock, issued, revocation, suspension, r, s, publish, published, verify };
  }

  it('a credential whose bits are clear verifies, with the status list itself verified', async () => {
    const t = await setup();
    const result = await t.verify();
    expect(failures(result)).toEqual([]);
    expect(result.checks.find((c) => c.check === 'status')).toEqual({ check: 'status', ok: true });
  });

  it('revoked', async () => {
    const t = await setup();
    await t.publish(setStatus(t.revocation, t.r.index, true));
    expect(failures(await t.verify())).toEqual(['revoked']);
  });

  it('suspended, then unsuspended', async () => {
    const t = await setup();
    await t.publish(setStatus(t.suspension, t.s.index, true));
    expect(failures(await t.verify())).toEqual(['suspended']);
    await t.publish(setStatus(t.suspension, t.s.index, false));
    expect(failures(await t.verify())).toEqual([]);
  });

  it('refuses a status list credential signed by someone else', async () => {
    const t = await setup();
    const forged = { ...t.revocation, issuer: other.did };
    await t.publish(forged, other.issuer);
    expect(failures(await t.verify())).toEqual(['status_list_invalid']);
  });

  it('refuses a tampered status list credential', async () => {
    const t = await setup();
    const list = t.published.get(LIST_URL);
    if (typeof list === 'string') {
      const [h, p, s] = list.split('.');
      const body = JSON.parse(Buffer.from(p, 'base64url').toString());
      body.vc.credentialSubject.encodedList = encodedList(setStatus(t.revocation, 5, true));
      t.published.set(LIST_URL, [h, Buffer.from(JSON.stringify(body)).toString('base64url'), s].join('.'));
    } else {
      const c = structuredClone(list as W3cCredential);
      c.credentialSubject.encodedList = encodedList(setStatus(t.revocation, 5, true));
      t.published.set(LIST_URL, c);
    }
    const result = await t.verify();
    expect(failures(result)).toEqual(['status_list_invalid']);
    expect(result.checks.find((c) => c.check === 'status')?.detail).toContain('invalid_proof');
  });

  it('fetches and verifies each status list once, however many entries name it, and refuses a credential naming too many lists before fetching any', async () => {
    const t = await setup();
    // 300 entries on the revocation list: one fetch; the one whose bit is set is found among them.
    let revocation = t.revocation;
    const entries = [];
    for (let i = 0; i < 300; i++) {
      const a = allocateIndex(revocation);
      revocation = a.list;
      entries.push(statusListEntry(revocation, a.index));
    }
    await t.publish(setStatus(revocation, Number(entries[299]!.statusListIndex), true));
    const many = await issueCredential({ format, issuer: issuer.issuer, subjectDid: holder.did, claims: { firstName: 'Ada' }, credentialStatus: entries, clock: t.clock });
    const fetched: string[] = [];
    const statusList = async (url: string) => {
      fetched.push(url);
      return t.published.get(url);
    };
    expect(failures(await verifyCredential(wire(many.credential), { resolve, clock: t.clock, statusList }))).toEqual(['revoked']);
    expect(fetched).toEqual([LIST_URL]);
    // One list more than MAX_STATUS_LISTS: refused as it is, nothing fetched.
    const lists = Array.from({ length: MAX_STATUS_LISTS + 1 }, (_, i) => statusListEntry(createStatusList({ id: `${LIST_URL}/${i}`, issuer: issuer.did, purpose: 'revocation' }), 1));
    const spread = await issueCredential({ format, issuer: issuer.issuer, subjectDid: holder.did, claims: { firstName: 'Ada' }, credentialStatus: lists, clock: t.clock });
    fetched.length = 0;
    const result = await verifyCredential(wire(spread.credential), { resolve, clock: t.clock, statusList });
    expect(failures(result)).toEqual(['status_list_invalid']);
    expect(result.checks.find((c) => c.check === 'status')?.detail).toBe(`credentialStatus names ${MAX_STATUS_LISTS + 1} status lists; at most ${MAX_STATUS_LISTS} are read`);
    expect(fetched).toEqual([]);
  });

  it('fails closed without a status source, or when the list is missing', async () => {
    const t = await setup();
    const input = wire(t.issued.credential);
    expect(failures(await verifyCredential(input, { resolve, clock: t.clock }))).toEqual(['status_unavailable']);
    expect(failures(await verifyCredential(input, { resolve, clock: t.clock, statusList: async () => undefined }))).toEqual(['status_unavailable']);
    const skipped = await verifyCredential(input, { resolve, clock: t.clock, skipStatus: true });
    expect(skipped.verified).toBe(true);
  });
});

describe('checkStatus', () => {
  it('refuses a purpose that differs from the list', async () => {
    const clock = new ManualClock();
    const list = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    const { credential } = await issueStatusListCredential(list, { format: 'ldp', issuer: issuer.issuer, clock });
    const entry = { ...statusListEntry(list, 3), statusPurpose: 'suspension' };
    expect(checkStatus(entry, credential as W3cCredential)).toMatchObject({ ok: false, code: 'status_list_invalid' });
    expect(checkStatus(statusListEntry(list, 3), credential as W3cCredential)).toEqual({ ok: true, purpose: 'revocation', set: false });
  });
});

describe('statusChangeTerms', () => {
  it('parses the vendor terms liberally and refuses others', () => {
    expect(parseStatusChangeTerms({ status: 'revoked', statusUpdateTrigger: 'WORKFLOW_COMPLETION' })).toEqual({
      status: 'REVOKED',
      statusUpdateTrigger: 'WORKFLOW_COMPLETION',
    });
    expect(() => parseStatusChangeTerms({ status: 'DELETED', statusUpdateTrigger: 'WORKFLOW_CREATION' })).toThrow(
      expect.objectContaining({ code: 'invalid_status_change_terms' }),
    );
  });

  it('sets the bit only on the named trigger', () => {
    const terms = parseStatusChangeTerms({ status: 'SUSPENDED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' });
    const list = createStatusList({ id: SUSPENSION_URL, issuer: issuer.did, purpose: 'suspension' });
    expect(applyStatusChange({ terms, trigger: 'WORKFLOW_CREATION', list, index: 4 })).toEqual({ list, changed: false });
    const done = applyStatusChange({ terms, trigger: 'WORKFLOW_COMPLETION', list, index: 4 });
    expect(done.changed).toBe(true);
    expect(getStatus(done.list, 4)).toBe(true);
    expect(applyStatusChange({ terms, trigger: 'WORKFLOW_COMPLETION', list: done.list, index: 4 }).changed).toBe(false);
    const revocation = createStatusList({ id: LIST_URL, issuer: issuer.did, purpose: 'revocation' });
    expect(() => applyStatusChange({ terms, trigger: 'WORKFLOW_COMPLETION', list: revocation, index: 4 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
