// E-mail invitations over SMTP (nodemailer), used when the service is given an smtp URL,
// e.g. smtp://user:pass@mail.example:587 or smtp://127.0.0.1:2525?ignoreTLS=true.
import nodemailer from 'nodemailer';
import { IdsyncError } from '../../../errors.js';
import { configUrl } from '../../config/config-url.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface EmailSender {
  send(message: EmailMessage): Promise<{ messageId: string }>;
  close(): void;
}

export interface EmailSenderOptions {
  smtpUrl: string;
  /** Envelope and header sender. */
  from?: string;
  /** Per-connection timeouts, ms. */
  timeoutMs?: number;
}

export function createEmailSender(options: EmailSenderOptions): EmailSender {
  configUrl(options.smtpUrl, 'smtp URL', ['smtp:', 'smtps:']); // refused at start, not at the first e-mail
  const timeout = options.timeoutMs ?? 10_000;
  // nodemailer reads host, port, auth and query options (secure, ignoreTLS…) from the URL.
  const transport = nodemailer.createTransport(options.smtpUrl, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as never);
  const from = options.from ?? 'idsync <no-reply@idsync.invalid>';
  return {
    async send(m) {
      try {
        const info = await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, ...(m.html ? { html: m.html } : {}) });
        return { messageId: String(info.messageId ?? '') };
      } catch (cause) {
        // Never echo the SMTP URL: it may hold credentials.
        const code = (cause as { code?: string; responseCode?: number })?.code;
        throw new IdsyncError('email_send_failed', `SMTP delivery failed${code ? ` (${code})` : ''}`, { cause });
      }
    },
    close: () => transport.close(),
  };
}
