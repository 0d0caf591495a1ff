// Sends one invitation to a list of destinations. Every destination is recorded in the outbox
// first (whether or not SMTP / an SMS gateway is configured), then handed to its transport;
// the outbox entry gets the outcome. A failed transport never throws: the result says
// 'failed' with a code, the entry keeps the error, and sending the invitation again retries.
import type { Invitation } from '../../../protocols/out-of-band.js';
import type { Outbox, OutboxStatus } from '../invitation-outbox.js';
import type { DidcommDelivery } from './didcomm.js';
import type { EmailSender } from './email.js';
import type { SmsSender } from './sms.js';
import type { Channel, Destination } from './targets.js';
import { toIdsyncError, type ErrorCode } from '../../../errors.js';

export interface DeliveryResult {
  channel: Channel;
  to: string;
  /** As in the outbox: sent, queued, recorded, pending (a DIDCOMM send the service makes again), or failed with `error`. */
  status: OutboxStatus;
  outboxId: string;
  error?: { code: string; message: string };
}

export interface InvitationMessage {
  invitation: Invitation;
  invitationUrl: string;
  workflowId?: string;
  tenantId?: string;
  /** E-mail subject; a default names the issuer. */
  subject?: string;
  /** Message text; the URL is appended when absent from it. */
  text?: string;
  issuerName?: string;
}

export interface InvitationSender {
  send(destinations: Destination[], message: InvitationMessage): Promise<DeliveryResult[]>;
}

export interface InvitationSenderOptions {
  outbox: Outbox;
  email?: EmailSender;
  sms?: SmsSender;
  didcomm?: DidcommDelivery;
  logger?: { warn(obj: unknown, msg?: string): void };
}

export function defaultSubject(issuerName = 'idsync'): string {
  return `${issuerName}: your credential is ready to collect`;
}

/** The code of a delivery that failed without saying why. */
const SEND_FAILED: Readonly<Record<Channel, ErrorCode>> = { EMAIL: 'email_send_failed', SMS: 'sms_send_failed', DIDCOMM: 'didcomm_send_failed' };

export function defaultText(url: string, issuerName = 'idsync', channel: Channel = 'EMAIL'): string {
  if (channel === 'SMS') return `${issuerName}: collect your credential in your wallet: ${url}`;
  return `Hello,\n\n${issuerName} has a verifiable credential for you. Open this link with your wallet to receive it:\n\n${url}\n`;
}

export function createInvitationSender(options: InvitationSenderOptions): InvitationSender {
  const { outbox } = options;

  async function one(d: Destination, m: InvitationMessage): Promise<DeliveryResult> {
    const issuer = m.issuerName ?? 'idsync';
    let text = m.text ?? (d.channel === 'DIDCOMM' ? `Out-of-band invitation ${m.invitation.id}` : defaultText(m.invitationUrl, issuer, d.channel));
    if (d.channel !== 'DIDCOMM' && !text.includes(m.invitationUrl)) text = `${text}\n${m.invitationUrl}`;
    const subject = d.channel === 'EMAIL' ? (m.subject ?? defaultSubject(issuer)) : undefined;
    const entry = await outbox.record({
      channel: d.channel,
      to: d.target,
      text,
      invitationUrl: m.invitationUrl,
      ...(subject !== undefined ? { subject } : {}),
      ...(m.workflowId !== undefined ? { workflowId: m.workflowId } : {}),
      ...(m.tenantId !== undefined ? { tenantId: m.tenantId } : {}),
    });
    let status: DeliveryResult['status'];
    let messageId: string | undefined;
    try {
      if (d.channel === 'EMAIL') {
        if (options.email) {
          messageId = (await options.email.send({ to: d.target, subject: subject!, text })).messageId;
          status = 'sent';
        } else status = 'recorded';
      } else if (d.channel === 'SMS') {
        if (options.sms) {
          messageId = (await options.sms.send({ to: d.target, text })).messageId;
          status = 'sent';
        } else status = 'recorded';
      } else if (options.didcomm) {
        const r = await options.didcomm(d.target, m.invitation);
        status = r === 'delivered' ? 'sent' : r;
      } else status = 'recorded';
    } catch (err) {
      const e = toIdsyncError(err, SEND_FAILED[d.channel]);
      const error = { code: e.code, message: e.message };
      options.logger?.warn({ channel: d.channel, outboxId: entry.id, code: e.code }, 'invitation delivery failed');
      await outbox.update(entry.id, { status: 'failed', error });
      return { channel: d.channel, to: d.target, status: 'failed', outboxId: entry.id, error };
    }
    await outbox.update(entry.id, { status, ...(messageId ? { messageId } : {}) });
    return { channel: d.channel, to: d.target, status, outboxId: entry.id };
  }

  return {
    // Destinations go out in parallel; each result stands on its own.
    send: (destinations, message) => Promise.all(destinations.map((d) => one(d, message))),
  };
}
