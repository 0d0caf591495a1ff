import { describe, expect, it } from 'vitest';
import {
  createDataProfile,
  credentialManifestFor,
  defaultKycProfile,
  validateDatapoints,
} from '../../src/credentials/manifest.js';
import { DATAPOINT_KEYS } from '../../src/credentials/datapoints.js';

const issuer = 'did:example:issuer';

describe('data profiles', () => {
  it('the default profile covers the vocabulary and requires name and birth date', () => {
    const p = defaultKycProfile(issuer);
    expect(p.fields.map((f) => f.key)).toEqual([...DATAPOINT_KEYS]);
    expect(p.fields.filter((f) => f.required).map((f) => f.key)).toEqual(['firstName', 'lastName', 'birthDate']);
    expect(p.manifest.issuer.id).toBe(issuer);
  });

  it('produces a DIF credential manifest in the WACI offer shape', () => {
    const m = credentialManifestFor(defaultKycProfile(), issuer, 'Example Bank');
    expect(m).toMatchObject({
      id: 'idsync-kyc-default',
      spec_version: 'https://identity.foundation/credential-manifest/spec/v1.0.0/',
      issuer: { id: issuer, name: 'Example Bank' },
      output_descriptors: [{ id: 'kyc_output', schema: expect.stringMatching(/^https:\/\//) }],
    });
    const props = m.output_descriptors[0].display!.properties!;
    expect(props).toContainEqual({
      path: ['$.credentialSubject.residentialAddress.country'],
      schema: { type: 'string' },
      label: 'Country',
    });
    expect(props).toContainEqual({
      path: ['$.credentialSubject.birthDate'],
      schema: { type: 'string', format: 'date' },
      label: 'Date of birth',
    });
  });

  it('validates datapoints against the profile', () => {
    const p = defaultKycProfile();
    const ok = validateDatapoints(p, { firstName: 'Ada', lastName: 'Lovelace', birthDate: '10/12/1815' });
    expect(ok).toEqual({ ok: true, errors: [], datapoints: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' } });

    const bad = validateDatapoints(p, { firstName: 'Ada', birthDate: '2023-02-30', shoeSize: '42' });
    expect(bad.ok).toBe(false);
    expect(bad.errors.map((e) => [e.field, e.code])).toEqual([
      ['birthDate', 'invalid_format'],
      ['shoeSize', 'unknown_datapoint'],
      ['lastName', 'missing_datapoint'],
    ]);
  });

  it('refuses keys outside the profile and applies patterns', () => {
    const p = createDataProfile({
      id: 'p',
      name: 'Small',
      fields: [
        { key: 'firstName', required: true },
        { key: 'residentialAddressPostalCode', required: false, pattern: '\\d{5}' },
      ],
    });
    const r = validateDatapoints(p, { firstName: 'A', residentialAddressPostalCode: '1234', emailAddress: 'a@b.de' });
    expect(r.errors.map((e) => [e.field, e.code])).toEqual([
      ['residentialAddressPostalCode', 'invalid_format'],
      ['emailAddress', 'unknown_datapoint'],
    ]);
  });

  it('rejects a profile with unknown keys or bad patterns', () => {
    expect(() => createDataProfile({ id: 'x', name: 'x', fields: [{ key: 'shoeSize' as never, required: true }] })).toThrow(
      expect.objectContaining({ code: 'invalid_profile' }),
    );
    expect(() => createDataProfile({ id: 'x', name: 'x', fields: [{ key: 'firstName', required: true, pattern: '(' }] })).toThrow(
      expect.objectContaining({ code: 'invalid_profile' }),
    );
  });
});
