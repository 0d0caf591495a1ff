// A URL the service is configured with (SMTP server, SMS gateway): it must parse and use one of
// the schemes its transport speaks, or the service refuses to start with invalid_config.
import { IdsyncError } from '../../errors.js';

export function configUrl(value: string, what: string, schemes: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new IdsyncError('invalid_config', `${what} is not a URL`, { cause });
  }
  if (!schemes.includes(url.protocol)) throw new IdsyncError('invalid_config', `${what} must use ${schemes.join(' or ')}`);
  // smtp:// parses, and nodemailer would then try localhost at the first e-mail.
  if (url.hostname === '') throw new IdsyncError('invalid_config', `${what} names no host`);
  return url;
}
