import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Secrets at rest (certificate keys, the ACME account key): AES-256-GCM under SECRETS_KEY, stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). The purpose is bound as associated data, so a value cannot be
 * moved to another column or row and still decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, purpose: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string, purpose: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !ciphertext) throw new Error('Not a sealed secret of a known version');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * The box for users' own secrets (two-factor secrets): SECRETS_KEY when set; otherwise a key derived from
 * COOKIE_SECRET, so two-factor sign-in works on the embedded defaults too (rotating that secret then resets
 * every enrolment: set SECRETS_KEY in production).
 */
/**
 * The key the User ID power-up hashes visitors with: derived from SECRETS_KEY, else from COOKIE_SECRET, so that every
 * gateway process of one installation makes the same id for the same visitor.
 */
export function visitorIdKey({ secretsKey, cookieSecret }: { secretsKey: Buffer | null; cookieSecret: string }) {
  return Buffer.from(hkdfSync('sha256', secretsKey ?? cookieSecret, 'tagport', 'visitor ids', 32));
}

/**
 * The token that marks the requests the platform's workers send through the gateway (Request Delay, Schedule), so a
 * visitor cannot pass for them: derived like visitorIdKey, the same in every process of one installation.
 */
export function platformRequestToken(secrets: { secretsKey: Buffer | null; cookieSecret: string }): string {
  return Buffer.from(
    hkdfSync('sha256', secrets.secretsKey ?? secrets.cookieSecret, 'tagport', 'platform requests', 32),
  ).toString('base64url');
}

export function userSecretsBox({ secretsKey, cookieSecret }: { secretsKey: Buffer | null; cookieSecret: string }) {
  const key = secretsKey ?? Buffer.from(hkdfSync('sha256', cookieSecret, 'tagport', 'user secrets', 32));
  return new SecretBox(key);
}
