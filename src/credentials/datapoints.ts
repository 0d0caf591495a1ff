// The datapoint vocabulary (service-interface.md "Datapoints"): flat keys, the nested form with
// `residentialAddress {…}`, PascalCase sync scope names, and normalisation of untrusted input.
// This is the ONE place that knows the vocabulary; service, wallet and credentials import it.
import { isCountryCode } from './country-codes.js';

/** Flat keys in the order of the spec's table. */
export const DATAPOINT_KEYS = [
  'firstName',
  'lastName',
  'birthDate',
  'nationality',
  'socialSecurityNumber',
  'residentialAddressStreetAddress',
  'residentialAddressLocality',
  'residentialAddressRegion',
  'residentialAddressPostalCode',
  'residentialAddressCountry',
  'emailAddress',
  'phoneNumber',
] as const;

export type DatapointKey = (typeof DATAPOINT_KEYS)[number];
export type FlatDatapoints = Partial<Record<DatapointKey, string>>;
/** A patch: `null` removes the key (JSON Merge Patch semantics, RFC 7396 §2). */
export type FlatDatapointsPatch = Partial<Record<DatapointKey, string | null>>;

/** Flat residentialAddress* key → field of the nested `residentialAddress` object. */
export const ADDRESS_FIELDS = {
  residentialAddressStreetAddress: 'streetAddress',
  residentialAddressLocality: 'locality',
  residentialAddressPostalCode: 'postalCode',
  residentialAddressRegion: 'region',
  residentialAddressCountry: 'country',
} as const;

export type AddressKey = keyof typeof ADDRESS_FIELDS;
export type AddressField = (typeof ADDRESS_FIELDS)[AddressKey];
export type ResidentialAddress = Partial<Record<AddressField, string>>;
export type NestedDatapoints = Partial<Record<Exclude<DatapointKey, AddressKey>, string>> & {
  residentialAddress?: ResidentialAddress;
};

/**
 * Input-only aliases. The spec's get-datapoints sample spells `residentialAddressountry`;
 * we accept it on input and always write `residentialAddressCountry`.
 */
export const KEY_ALIASES: Readonly<Record<string, DatapointKey>> = {
  residentialAddressountry: 'residentialAddressCountry',
};

/** Formats a value is checked against; manifest.ts reuses them for profile fields. */
export type DatapointFormat = 'date' | 'country' | 'email' | 'phone' | 'string';

const FORMATS: Record<DatapointKey, DatapointFormat> = {
  firstName: 'string',
  lastName: 'string',
  birthDate: 'date',
  nationality: 'country',
  socialSecurityNumber: 'string',
  residentialAddressStreetAddress: 'string',
  residentialAddressLocality: 'string',
  residentialAddressRegion: 'string',
  residentialAddressPostalCode: 'string',
  residentialAddressCountry: 'country',
  emailAddress: 'email',
  phoneNumber: 'phone',
};

export function datapointFormat(key: DatapointKey): DatapointFormat {
  return FORMATS[key];
}

const KEY_SET: ReadonlySet<string> = new Set(DATAPOINT_KEYS);

export function isDatapointKey(key: string): key is DatapointKey {
  return KEY_SET.has(key);
}

/** Canonical key for an input key (aliases resolved), or undefined when not in the vocabulary. */
export function canonicalKey(key: string): DatapointKey | undefined {
  if (isDatapointKey(key)) return key;
  return Object.prototype.hasOwnProperty.call(KEY_ALIASES, key) ? KEY_ALIASES[key] : undefined;
}

// ---- scope names ---------------------------------------------------------------------------

/** Sync scope name: `firstName` → `FirstName` (spec: "Sync scope names"). */
export function scopeName(key: DatapointKey): string {
  return key[0].toUpperCase() + key.slice(1);
}

const SCOPE_TO_KEY = new Map<string, DatapointKey>(DATAPOINT_KEYS.map((k) => [scopeName(k), k]));

/** `FirstName` → `firstName`; undefined for a name that is not a scope. */
export function keyFromScope(scope: string): DatapointKey | undefined {
  return SCOPE_TO_KEY.get(scope);
}

export const SCOPE_NAMES: readonly string[] = DATAPOINT_KEYS.map(scopeName);

// ---- flat <-> nested -----------------------------------------------------------------------

export function toNested(flat: FlatDatapoints): NestedDatapoints {
  const nested: NestedDatapoints = {};
  const address: ResidentialAddress = {};
  for (const key of DATAPOINT_KEYS) {
    const value = flat[key];
    if (value === undefined) continue;
    if (key in ADDRESS_FIELDS) address[ADDRESS_FIELDS[key as AddressKey]] = value;
    else nested[key as Exclude<DatapointKey, AddressKey>] = value;
  }
  if (Object.keys(address).length > 0) nested.residentialAddress = address;
  return nested;
}

export function toFlat(nested: NestedDatapoints): FlatDatapoints {
  const flat: FlatDatapoints = {};
  for (const key of DATAPOINT_KEYS) {
    const value = key in ADDRESS_FIELDS
      ? nested.residentialAddress?.[ADDRESS_FIELDS[key as AddressKey]]
      : nested[key as Exclude<DatapointKey, AddressKey>];
    if (value !== undefined) flat[key] = value;
  }
  return flat;
}

// ---- normalisation of untrusted input ------------------------------------------------------

export type DatapointErrorCode =
  | 'invalid_datapoints'
  | 'unknown_datapoint'
  | 'invalid_type'
  | 'empty_datapoint'
  | 'datapoint_too_long'
  | 'invalid_date'
  | 'invalid_country'
  | 'invalid_email'
  | 'invalid_phone';

export interface DatapointError {
  /** The key as the client sent it ('' for the whole object). */
  field: string;
  code: DatapointErrorCode;
  message: string;
}

export const MAX_DATAPOINT_LENGTH = 1024;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const SLASH_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
// No white space and no control characters (C0, DEL, C1: RFC 5322 atext and RFC 6532 UTF-8
// leave them out), which would otherwise reach the credential and any terminal that prints it.
const EMAIL = /^[^\s@\u0000-\u001f\u007f-\u009f]{1,64}@[^\s@.\u0000-\u001f\u007f-\u009f]+(\.[^\s@.\u0000-\u001f\u007f-\u009f]+)+$/;
// E.164: '+', country code starting 1-9, at most 15 digits in all.
const E164 = /^\+[1-9]\d{6,14}$/;

function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * Normalises one value of a known key. Returns the canonical string, or an error.
 * - birthDate: `YYYY-MM-DD` or `DD/MM/YYYY` (the issuance sample's day/month/year) → `YYYY-MM-DD`;
 *   impossible dates (2023-02-30) are refused.
 * - nationality, residentialAddressCountry: ISO 3166-1 alpha-2, upper-cased.
 * - emailAddress: local@domain, domain lower-cased.
 * - phoneNumber: E.164. Spaces, dashes, dots and parentheses are removed and a leading `00`
 *   becomes `+`. A masked placeholder (`+1******89`, `***`) is refused: it is a display form,
 *   not data, and must never end up in a credential.
 */
export function normalizeValue(key: DatapointKey, raw: string): { value: string } | { code: DatapointErrorCode; message: string } {
  const value = raw.trim();
  if (value === '') return { code: 'empty_datapoint', message: `${key} is empty` };
  if (value.length > MAX_DATAPOINT_LENGTH) {
    return { code: 'datapoint_too_long', message: `${key} is longer than ${MAX_DATAPOINT_LENGTH} characters` };
  }
  switch (FORMATS[key]) {
    case 'date': {
      let y: number, m: number, d: number;
      const iso = ISO_DATE.exec(value);
      const slash = iso ? null : SLASH_DATE.exec(value);
      if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
      else if (slash) [d, m, y] = [Number(slash[1]), Number(slash[2]), Number(slash[3])];
      else return { code: 'invalid_date', message: `${key} must be YYYY-MM-DD or DD/MM/YYYY` };
      if (!isCalendarDate(y, m, d)) return { code: 'invalid_date', message: `${key} is not a calendar date` };
      return { value: `${String(y).padStart(4, '0')}-${pad2(m)}-${pad2(d)}` };
    }
    case 'country': {
      // ASCII letters only, checked before upper-casing: 'ß'.toUpperCase() is 'SS' (South Sudan).
      const code = /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : '';
      if (!isCountryCode(code)) return { code: 'invalid_country', message: `${key} must be an ISO 3166-1 alpha-2 country code` };
      return { value: code };
    }
    case 'email': {
      if (value.length > 254 || !EMAIL.test(value)) return { code: 'invalid_email', message: `${key} is not an e-mail address` };
      const at = value.lastIndexOf('@');
      return { value: value.slice(0, at) + value.slice(at).toLowerCase() };
    }
    case 'phone': {
      let phone = value.replace(/[\s\-.()]/g, '');
      if (phone.startsWith('00')) phone = '+' + phone.slice(2);
      if (!E164.test(phone)) return { code: 'invalid_phone', message: `${key} must be an E.164 number (+ and up to 15 digits)` };
      return { value: phone };
    }
    default:
      return { value };
  }
}

export interface NormalizeOptions {
  /** Drop keys outside the vocabulary silently instead of reporting `unknown_datapoint`. */
  ignoreUnknown?: boolean;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Flattens an accepted nested `residentialAddress` object into [inputKey, flatKey, value] entries. */
function entriesOf(input: Record<string, unknown>): Array<[string, DatapointKey | undefined, unknown]> {
  const out: Array<[string, DatapointKey | undefined, unknown]> = [];
  for (const [inKey, value] of Object.entries(input)) {
    if (inKey === 'residentialAddress' && isPlainObject(value)) {
      // Liberal: the nested form is accepted too.
      for (const [field, v] of Object.entries(value)) {
        const flatKey = (Object.keys(ADDRESS_FIELDS) as AddressKey[]).find((k) => ADDRESS_FIELDS[k] === field);
        out.push([`residentialAddress.${field}`, flatKey, v]);
      }
    } else {
      out.push([inKey, canonicalKey(inKey), value]);
    }
  }
  return out;
}

function normalize(input: unknown, allowNull: boolean, options: NormalizeOptions): {
  datapoints: FlatDatapointsPatch;
  errors: DatapointError[];
} {
  const datapoints: FlatDatapointsPatch = {};
  const errors: DatapointError[] = [];
  if (!isPlainObject(input)) {
    return { datapoints, errors: [{ field: '', code: 'invalid_datapoints', message: 'datapoints must be a JSON object' }] };
  }
  for (const [inKey, key, value] of entriesOf(input)) {
    if (!key) {
      if (!options.ignoreUnknown) errors.push({ field: inKey, code: 'unknown_datapoint', message: `${inKey} is not a datapoint` });
      continue;
    }
    if (value === null && allowNull) {
      datapoints[key] = null;
      continue;
    }
    if (typeof value !== 'string') {
      errors.push({ field: inKey, code: 'invalid_type', message: `${inKey} must be a string${allowNull ? ' or null' : ''}` });
      continue;
    }
    const result = normalizeValue(key, value);
    if ('code' in result) errors.push({ field: inKey, code: result.code, message: result.message });
    else datapoints[key] = result.value;
  }
  return { datapoints, errors };
}

/** Validates and normalises flat datapoints from a client. Values must be strings. */
export function normalizeFlat(input: unknown, options: NormalizeOptions = {}): {
  datapoints: FlatDatapoints;
  errors: DatapointError[];
} {
  const { datapoints, errors } = normalize(input, false, options);
  return { datapoints: datapoints as FlatDatapoints, errors };
}

/** Like normalizeFlat, for a patch: a value of `null` means "remove this datapoint". */
export function normalizePatch(input: unknown, options: NormalizeOptions = {}): {
  datapoints: FlatDatapointsPatch;
  errors: DatapointError[];
} {
  return normalize(input, true, options);
}

/**
 * Applies a patch (RFC 7396 semantics): a string sets the key, `null` removes it, an absent key
 * keeps the old value. Inputs are not modified; the result lists keys in vocabulary order.
 */
export function mergeDatapoints(old: FlatDatapoints, patch: FlatDatapointsPatch): FlatDatapoints {
  const out: FlatDatapoints = {};
  for (const key of DATAPOINT_KEYS) {
    const value = Object.prototype.hasOwnProperty.call(patch, key) ? patch[key] : old[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
