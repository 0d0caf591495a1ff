import { describe, expect, it } from 'vitest';
import {
  DATAPOINT_KEYS,
  SCOPE_NAMES,
  keyFromScope,
  mergeDatapoints,
  normalizeFlat,
  normalizePatch,
  scopeName,
  toFlat,
  toNested,
  type FlatDatapoints,
} from '../../src/credentials/datapoints.js';

const full: FlatDatapoints = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  birthDate: '1815-12-10',
  nationality: 'GB',
  socialSecurityNumber: 'AB123456C',
  residentialAddressStreetAddress: '12 St James Square',
  residentialAddressLocality: 'London',
  residentialAddressRegion: 'Greater London',
  residentialAddressPostalCode: 'SW1Y 4JH',
  residentialAddressCountry: 'GB',
  emailAddress: 'ada@example.com',
  phoneNumber: '+442071234567',
};

const codes = (input: unknown) => normalizeFlat(input).errors.map((e) => [e.field, e.code]);

describe('datapoint vocabulary', () => {
  it('has the twelve flat keys and PascalCase scope names', () => {
    expect(DATAPOINT_KEYS).toHaveLength(12);
    expect(scopeName('residentialAddressPostalCode')).toBe('ResidentialAddressPostalCode');
    expect(keyFromScope('FirstName')).toBe('firstName');
    expect(keyFromScope('firstName')).toBeUndefined();
    for (const s of SCOPE_NAMES) expect(scopeName(keyFromScope(s)!)).toBe(s);
  });

  it('round-trips flat → nested → flat', () => {
    const nested = toNested(full);
    expect(nested.residentialAddress).toEqual({
      streetAddress: '12 St James Square',
      locality: 'London',
      region: 'Greater London',
      postalCode: 'SW1Y 4JH',
      country: 'GB',
    });
    expect('residentialAddressCountry' in nested).toBe(false);
    expect(toFlat(nested)).toEqual(full);
  });

  it('omits residentialAddress when no address key is set', () => {
    expect(toNested({ firstName: 'A' })).toEqual({ firstName: 'A' });
  });
});

describe('normalizeFlat', () => {
  it('accepts a complete valid set unchanged', () => {
    expect(normalizeFlat(full)).toEqual({ datapoints: full, errors: [] });
  });

  it('normalises DD/MM/YYYY birth dates to YYYY-MM-DD', () => {
    expect(normalizeFlat({ birthDate: '10/12/1815' }).datapoints.birthDate).toBe('1815-12-10');
    expect(normalizeFlat({ birthDate: '1/2/2000' }).datapoints.birthDate).toBe('2000-02-01');
  });

  it('rejects impossible dates and other formats', () => {
    expect(codes({ birthDate: '2023-02-30' })).toEqual([['birthDate', 'invalid_date']]);
    expect(codes({ birthDate: '31/04/2020' })).toEqual([['birthDate', 'invalid_date']]);
    expect(codes({ birthDate: '2023-13-01' })).toEqual([['birthDate', 'invalid_date']]);
    expect(codes({ birthDate: '1900-02-29' })).toEqual([['birthDate', 'invalid_date']]);
    expect(codes({ birthDate: 'yesterday' })).toEqual([['birthDate', 'invalid_date']]);
    expect(normalizeFlat({ birthDate: '2000-02-29' }).errors).toEqual([]);
  });

  it('accepts the misspelt residentialAddressountry as residentialAddressCountry', () => {
    const r = normalizeFlat({ residentialAddressountry: 'de' });
    expect(r).toEqual({ datapoints: { residentialAddressCountry: 'DE' }, errors: [] });
  });

  it('reports unknown keys, non-string values and empty values', () => {
    expect(codes({ favouriteColour: 'blue', firstName: 42, lastName: '  ' })).toEqual([
      ['favouriteColour', 'unknown_datapoint'],
      ['firstName', 'invalid_type'],
      ['lastName', 'empty_datapoint'],
    ]);
    expect(normalizeFlat({ x: 'y' }, { ignoreUnknown: true }).errors).toEqual([]);
    expect(codes(['firstName'])).toEqual([['', 'invalid_datapoints']]);
  });

  it('checks country codes, e-mail and E.164 phone numbers', () => {
    expect(codes({ nationality: 'XX', residentialAddressCountry: 'GBR' })).toEqual([
      ['nationality', 'invalid_country'],
      ['residentialAddressCountry', 'invalid_country'],
    ]);
    expect(codes({ emailAddress: 'not-an-email' })).toEqual([['emailAddress', 'invalid_email']]);
    // Letters that upper-case to two ASCII letters are not codes: 'ß' → 'SS', 'ﬆ' → 'ST'.
    expect(codes({ nationality: 'ß', residentialAddressCountry: '\ufb06' })).toEqual([
      ['nationality', 'invalid_country'],
      ['residentialAddressCountry', 'invalid_country'],
    ]);
    expect(normalizeFlat({ nationality: 'gb' }).datapoints).toEqual({ nationality: 'GB' });
    // Control characters (C0, DEL, C1) are not part of an address, in either half.
    for (const email of ['a\u0000lice@example.com', 'alice@exa\u0001mple.com', 'a\u001b[31m@example.com', 'a\u007f@example.com', 'a@ex\u0085ample.com']) {
      expect(codes({ emailAddress: email })).toEqual([['emailAddress', 'invalid_email']]);
    }
    expect(normalizeFlat({ emailAddress: 'zoë@example.com' }).datapoints).toEqual({ emailAddress: 'zoë@example.com' });
    expect(codes({ phoneNumber: '+1******89' })).toEqual([['phoneNumber', 'invalid_phone']]);
    expect(codes({ phoneNumber: '0123456' })).toEqual([['phoneNumber', 'invalid_phone']]);
    expect(normalizeFlat({ phoneNumber: '0044 (20) 7123-4567', emailAddress: 'Ada@EXAMPLE.com' }).datapoints).toEqual({
      phoneNumber: '+442071234567',
      emailAddress: 'Ada@example.com',
    });
  });

  it('accepts the nested residentialAddress form on input', () => {
    expect(normalizeFlat({ residentialAddress: { locality: 'Berlin', country: 'DE', planet: 'Earth' } })).toEqual({
      datapoints: { residentialAddressLocality: 'Berlin', residentialAddressCountry: 'DE' },
      errors: [{ field: 'residentialAddress.planet', code: 'unknown_datapoint', message: expect.any(String) }],
    });
  });
});

describe('patches', () => {
  it('null removes a key, strings set, absent keys stay', () => {
    const patch = normalizePatch({ phoneNumber: null, firstName: 'Augusta' });
    expect(patch.errors).toEqual([]);
    const merged = mergeDatapoints(full, patch.datapoints);
    expect(merged.phoneNumber).toBeUndefined();
    expect(merged.firstName).toBe('Augusta');
    expect(merged.lastName).toBe('Lovelace');
    expect(full.phoneNumber).toBe('+442071234567');
  });

  it('normalizeFlat refuses null', () => {
    expect(codes({ firstName: null })).toEqual([['firstName', 'invalid_type']]);
  });
});
