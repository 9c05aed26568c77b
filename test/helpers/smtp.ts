import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the test's SMTP server received it, with its MIME parts decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message's own headers, lower-case names, folded lines joined. */
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

/** Splits a MIME entity into its unfolded headers and its body. */
function splitEntity(entity: string): { headers: Record<string, string>; body: string } {
  const at = entity.indexOf('\r\n\r\n');
  const head = (at === -1 ? entity : entity.slice(0, at)).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: at === -1 ? '' : entity.slice(at + 4) };
}

function decode(body: string, encoding = '7bit'): string {
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The text/plain and text/html parts, walking multipart bodies (enough for what nodemailer writes). */
function parts(entity: string, found: { text: string; html: string }): void {
  const { headers, body } = splitEntity(entity);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      parts(part.replace(/^\r\n/, ''), found);
    }
    return;
  }
  const decoded = decode(body, headers['content-transfer-encoding']);
  if (/^text\/html/i.test(type)) found.html = decoded;
  else if (/^text\/plain/i.test(type)) found.text = decoded;
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const { headers } = splitEntity(raw);
  const found = { text: '', html: '' };
  parts(raw, found);
  return { ...envelope, headers, subject: headers.subject ?? '', ...found, raw };
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that requires the given credentials, without TLS.
 * `url` is what SMTP_URL would be set to.
 */
export async function startSmtpServer(credentials = { user: 'mailer', pass: 'smtp-test-password' }) {
  const received: ReceivedMail[] = [];
  const waiting: Array<(mail: ReceivedMail) => void> = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.pass)
        return callback(null, { user: auth.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'), {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        });
        const waiter = waiting.shift();
        if (waiter) waiter(mail);
        else received.push(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    port,
    /** The next message received (or one already received and not yet taken). */
    next(): Promise<ReceivedMail> {
      const ready = received.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
