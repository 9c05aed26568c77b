import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';

/** nodemailer loads only where SMTP is configured: an instance without mail never loads it. */
const loadNodemailer = (): typeof import('nodemailer') => createRequire(import.meta.url)('nodemailer');

/** A message in plain words: the text and the HTML part are both built from it, so they always say the same. */
export interface MailMessage {
  to: string;
  subject: string;
  /** Paragraphs of plain text; escaped in the HTML part. */
  paragraphs: string[];
  /** A button in the HTML part and a bare link in the text part. */
  action?: { label: string; url: string };
  /** Small print under the action. */
  footer?: string;
}

/** What a caller learns: `sent`, or why not (no SMTP configured, or the server refused / could not be reached). */
export type MailOutcome = { sent: true } | { sent: false; reason: 'not_configured' | 'failed' };

export interface MailSettings {
  /** `smtp://user:password@host:port` or `smtps://…`; null sends nothing. */
  smtpUrl: string | null;
  from: string;
  /** Told about failed sends, with the SMTP error code and command only (never the URL, its password or the body). */
  onError?: (error: Error) => void;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char]);

export function renderText(message: MailMessage): string {
  const parts = [...message.paragraphs];
  if (message.action) parts.push(`${message.action.label}: ${message.action.url}`);
  if (message.footer) parts.push(`-- \n${message.footer}`);
  return `${parts.join('\n\n')}\n`;
}

export function renderHtml(message: MailMessage): string {
  const paragraphs = message.paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`);
  const action = message.action
    ? `<p><a href="${escapeHtml(message.action.url)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(message.action.label)}</a></p>` +
      `<p style="font-size:13px;color:#555555">Or open this link: <a href="${escapeHtml(message.action.url)}">${escapeHtml(message.action.url)}</a></p>`
    : '';
  const footer = message.footer ? `<p style="font-size:12px;color:#777777">${escapeHtml(message.footer)}</p>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(message.subject)}</title></head><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111111">${paragraphs.join('')}${action}${footer}</body></html>`;
}

/** Outgoing email over SMTP (nodemailer), shared by invitations and alerts. */
export class Mailer {
  private readonly transport: Transporter | null;
  private readonly from: string;
  private readonly onError: NonNullable<MailSettings['onError']>;

  constructor({ smtpUrl, from, onError = () => {} }: MailSettings) {
    this.from = from;
    this.onError = onError;
    this.transport = smtpUrl
      ? loadNodemailer().createTransport({
          url: smtpUrl,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        })
      : null;
  }

  get configured(): boolean {
    return this.transport !== null;
  }

  /** Sends one message; never throws for a mail problem, the outcome says whether it went out. */
  async send(message: MailMessage): Promise<MailOutcome> {
    if (!this.transport) return { sent: false, reason: 'not_configured' };
    try {
      await this.transport.sendMail({
        from: this.from,
        to: message.to,
        subject: message.subject,
        text: renderText(message),
        html: renderHtml(message),
      });
      return { sent: true };
    } catch (error) {
      const { code, command } = error as { code?: string; command?: string };
      const where = [code, command].filter(Boolean).join(', ');
      this.onError(new Error(`sending an email failed${where ? ` (${where})` : ''}`));
      return { sent: false, reason: 'failed' };
    }
  }

  close(): void {
    this.transport?.close();
  }
}
