// Conformance results as data: a pass is one frozen object per rule (every message passes dozens),
// with its catalogue severity and the layer it was asked for; fails and notes are new each time.
import { describe, expect, it } from 'vitest';
import { check, fail, note, pass } from '../../src/conformance/types.js';
import { severityOf } from '../../src/conformance/catalogue.js';

describe('conformance results', () => {
  it('gives one frozen pass per rule, with the catalogue severity', () => {
    const a = pass('plaintext', 'plaintext.id');
    expect(a).toEqual({ rule: 'plaintext.id', ok: true, severity: severityOf('plaintext.id'), layer: 'plaintext' });
    expect(pass('plaintext', 'plaintext.id')).toBe(a);
    expect(check('plaintext', 'plaintext.id', true, 'unused')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      (a as { ok: boolean }).ok = false;
    }).toThrow(TypeError);
    expect(pass('plaintext', 'plaintext.id').ok).toBe(true);
  });

  it('keeps the layer asked for when one rule id is passed under two layers', () => {
    const p = pass('protocol', 'custom.rule-of-a-user');
    const e = pass('envelope', 'custom.rule-of-a-user');
    expect([p.layer, e.layer]).toEqual(['protocol', 'envelope']);
    expect(pass('protocol', 'custom.rule-of-a-user')).toBe(p);
    // A rule the catalogue lacks counts as an error (catalogue.ts severityOf).
    expect(e.severity).toBe('error');
  });

  it('makes fails and notes anew, with their details', () => {
    const f1 = fail('plaintext', 'plaintext.id', 'no id');
    const f2 = fail('plaintext', 'plaintext.id', 'no id');
    expect(f1).not.toBe(f2);
    expect(f1).toMatchObject({ ok: false, detail: 'no id' });
    expect(note('plaintext', 'plaintext.id', 'accepted')).toMatchObject({ ok: true, detail: 'accepted' });
    expect(check('plaintext', 'plaintext.id', false, 'why')).toMatchObject({ ok: false, detail: 'why' });
  });
});
