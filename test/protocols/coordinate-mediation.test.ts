// Coordinate Mediation 2.0 / 3.0 and Routing 2.0 messages as data: what the builders write, what
// the body rules refuse (the 2.0 grant's routing_did is one DID, the 3.0 one a list; updates need
// add|remove and a DID; paginate and pagination need all their members), and how a forward's
// attachment is read in each form senders use.
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { refusalsOf } from '../../src/conformance/types.js';
import {
  buildMediateGrant, buildRecipientList, buildRecipientQuery, buildRecipientUpdate, COORDINATE_MEDIATION_2_RULES, COORDINATE_MEDIATION_3_RULES, mediationTypes, parseMediateGrant,
  parseRecipientList, parseRecipientUpdate,
} from '../../src/protocols/coordinate-mediation.js';
import { buildForward, parseForwardMessage, ROUTING_RULES } from '../../src/protocols/routing.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uEncode } from '../../src/encoding.js';

const deps = { clock: new ManualClock(1_700_000_000_000) };
const broken = (rules: Record<string, Array<(m: PlainMessage, c: object) => Array<{ ok: boolean; severity: string; rule: string }>>>, name: string, m: PlainMessage) =>
  refusalsOf(rules[name]!.flatMap((r) => r(m, {})) as never).map((r) => (r as { rule: string }).rule);
const M = 'did:peer:2.Ez6LSexample';

describe('coordinate-mediation messages', () => {
  it('writes the 2.0 grant routing_did as one string and the 3.0 one as a list; both parse to a list', () => {
    const g2 = buildMediateGrant('2.0', { routingDid: M, thid: 't' }, deps);
    const g3 = buildMediateGrant('3.0', { routingDid: M, thid: 't' }, deps);
    expect(g2).toMatchObject({ type: 'https://didcomm.org/coordinate-mediation/2.0/mediate-grant', thid: 't', body: { routing_did: M } });
    expect(g3.body.routing_did).toEqual([M]);
    expect(parseMediateGrant(g2).routingDids).toEqual([M]);
    expect(parseMediateGrant(g3).routingDids).toEqual([M]);
  });

  it('refuses a 2.0 grant carrying a list and a 3.0 grant carrying a string', () => {
    expect(broken(COORDINATE_MEDIATION_2_RULES, 'mediate-grant', { ...buildMediateGrant('2.0', { routingDid: M }, deps), body: { routing_did: [M] } })).toEqual(['coordinate-mediation.mediate-grant.routing_did']);
    expect(broken(COORDINATE_MEDIATION_3_RULES, 'mediate-grant', { ...buildMediateGrant('3.0', { routingDid: M }, deps), body: { routing_did: M } })).toEqual(['coordinate-mediation.mediate-grant.routing_did-list']);
  });

  it('names the 3.0 messages after recipients and asks for return_route "all" on requests', () => {
    const u = buildRecipientUpdate('3.0', { updates: [{ recipientDid: M, action: 'add' }] }, deps);
    expect(u).toMatchObject({ type: 'https://didcomm.org/coordinate-mediation/3.0/recipient-update', return_route: 'all', body: { updates: [{ recipient_did: M, action: 'add' }] } });
    expect(mediationTypes('2.0').list).toBe('https://didcomm.org/coordinate-mediation/2.0/keylist');
    expect(parseRecipientList(buildRecipientList('3.0', { dids: [M], pagination: { count: 1, offset: 0, remaining: 0 } }, deps))).toEqual({ dids: [M], pagination: { count: 1, offset: 0, remaining: 0 } });
    expect(parseRecipientList(buildRecipientList('2.0', { dids: [M] }, deps)).dids).toEqual([M]);
  });

  it('refuses updates without a DID or with another action, and paginate or pagination missing members', () => {
    const u = buildRecipientUpdate('2.0', { updates: [{ recipientDid: M, action: 'add' }] }, deps);
    expect(() => parseRecipientUpdate({ ...u, body: { updates: [{ recipient_did: M, action: 'replace' }] } })).toThrow(/keylist-update.updates/);
    expect(() => parseRecipientUpdate({ ...u, body: { updates: [{ recipient_did: 'not a did', action: 'add' }] } })).toThrow(/keylist-update.updates/);
    expect(broken(COORDINATE_MEDIATION_2_RULES, 'keylist-query', { ...buildRecipientQuery('2.0', {}, deps), body: { paginate: { limit: 5 } } })).toEqual(['coordinate-mediation.keylist-query.paginate']);
    expect(broken(COORDINATE_MEDIATION_2_RULES, 'keylist', { ...buildRecipientList('2.0', { dids: [] }, deps), body: { keys: [], pagination: { count: 0 } } })).toEqual(['coordinate-mediation.keylist.pagination']);
  });
});

describe('routing 2.0 forward', () => {
  const packed = JSON.stringify({ protected: 'p', recipients: [], iv: 'i', ciphertext: 'c', tag: 't' });

  it('carries the packed message as a JSON attachment with next, expires_time and delay_milli', () => {
    const f = buildForward({ next: M, packed, expiresTime: 1_700_000_100, delayMilli: -500 }, deps);
    expect(f).toMatchObject({ type: 'https://didcomm.org/routing/2.0/forward', body: { next: M }, expires_time: 1_700_000_100, delay_milli: -500 });
    expect(parseForwardMessage(f)).toEqual({ next: M, packed: [packed], expiresTime: 1_700_000_100, delayMilli: -500 });
  });

  it('reads an attachment as data.json, as data.base64 of the packed JSON, and as the JSON text in data.json', () => {
    const f = buildForward({ next: M, packed }, deps);
    for (const data of [{ base64: b64uEncode(packed) }, { json: packed }]) {
      expect(parseForwardMessage({ ...f, attachments: [{ data }] }).packed).toEqual([packed]);
    }
  });

  it("writes each attachment's json out once, and two forwards' attachments each as their own", () => {
    const f = buildForward({ next: M, packed }, deps);
    const other = JSON.stringify({ protected: 'q', recipients: [], iv: 'i', ciphertext: 'd', tag: 't' });
    const g = buildForward({ next: M, packed: other }, deps);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (const r of ROUTING_RULES.forward!) r(f, {});
      expect(parseForwardMessage(f).packed).toEqual([packed]);
      expect(parseForwardMessage(g).packed).toEqual([other]);
      expect(parseForwardMessage(f).packed).toEqual([packed]);
      // Once for f's attachment, once for g's: the rule, the parse's rules and the parse share the text.
      expect(stringify).toHaveBeenCalledTimes(2);
    } finally {
      stringify.mockRestore();
    }
  });

  it('refuses a forward without next or without a packed message, and warns about please_ack', () => {
    const f = buildForward({ next: M, packed }, deps);
    expect(() => parseForwardMessage({ ...f, body: {} })).toThrow(/routing.forward.next/);
    expect(() => parseForwardMessage({ ...f, attachments: [{ data: { links: ['https://x'] } }] })).toThrow(/routing.forward.attachments/);
    const results = ROUTING_RULES.forward!.flatMap((r) => r({ ...f, please_ack: ['x'] }, {}));
    expect(results.find((r) => r.rule === 'routing.forward.please_ack')).toMatchObject({ ok: false, severity: 'warning' });
  });
});
