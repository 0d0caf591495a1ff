// A message id is unique per sender (DIDComm v2 §Message Headers), and a did:peer:4 in its long
// and short forms is one sender (DID Peer §Method 4): its ids are seen once whichever form sent
// them. A record written when only did:ion long forms were shortened (under the long form) still
// refuses a replay, which carries the long form it was sent with.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { formerSeenKey, seenKey, seenTracker } from '../../src/router/seen.js';
import type { SeenRecord } from '../../src/router/types.js';

describe('seen message ids from a did:peer:4', () => {
  const { did: long, shortDid } = createPeerDid4();
  const short = shortDid!;

  it('are one key in either form, and only a long form has a former key', () => {
    expect(seenKey('m-1', long)).toBe(seenKey('M-1', short));
    expect(formerSeenKey('m-1', short)).toBeUndefined();
    expect(formerSeenKey('m-1', 'did:peer:2.Vz6Mkexample')).toBeUndefined();
    expect(formerSeenKey('m-1', long)).not.toBe(seenKey('m-1', long));
  });

  it('refuses a replay recorded under the long form before', async () => {
    const clock = new ManualClock(1_000);
    const records = new Map<string, SeenRecord>([[formerSeenKey('m-1', long)!, { at: 900, refusal: { code: 'invalid_message', message: 'no' } }]]);
    const seen = seenTracker({ seen: { get: async (k) => records.get(k), put: async (k, v) => void records.set(k, v) } }, clock, () => {});
    expect(await seen.claim(seenKey('m-1', long), formerSeenKey('m-1', long))).toBe('seen');
    expect(await seen.refusalOf(seenKey('m-1', long), formerSeenKey('m-1', long))).toMatchObject({ code: 'invalid_message' });
    expect(await seen.claim(seenKey('m-2', long), formerSeenKey('m-2', long))).toBe('claimed');
  });
});
